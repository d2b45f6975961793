// starc runtime: graph reading (text edge list and Matrix Market) into forward and reverse CSR.
//
// Part of the shared, header-only C++17 runtime of starc-generated programs (CUDA, SYCL,
// OpenACC and MPI hosts). It accepts exactly the formats of the Python reader
// `starc.graphs.load_graph` and builds the same CSR arrays, edge for edge:
//   * edges sorted by (src, dst) with a stable sort, so duplicates keep their file order;
//   * duplicates and self-loops kept; `undirected` appends v->u for every non-loop u->v;
//   * the reverse CSR lists in-edges by (dst, src, forward edge id).
// The format follows the extension: ".mtx" Matrix Market, ".npz" rejected (the binary cache is
// for the Python tools), anything else a text edge list.
// Errors are InputError("path:line: what"), or "path: what" for whole-file problems.
#ifndef STARC_GRAPH_HPP
#define STARC_GRAPH_HPP

#include <cerrno>
#include <cstddef>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace starc {

/// A bad graph file; the message reads "path:line: what".
struct InputError : std::runtime_error {
  using runtime_error::runtime_error;
};

/// A directed multigraph in forward and reverse CSR form with 32-bit ids.
struct Graph {
  int num_nodes = 0, num_edges = 0;
  std::vector<int> offsets, targets, sources;                // forward CSR; sources[e] = source of e
  std::vector<int> rev_offsets, rev_sources, rev_edge_ids;   // reverse CSR; ids of forward edges
  std::vector<double> weights;                               // CSR order; empty when unweighted
  bool has_weights = false;
  bool weights_integral = true;                              // every weight was an integer literal
  std::string path;

  int out_degree(int v) const { return offsets[static_cast<size_t>(v) + 1] - offsets[static_cast<size_t>(v)]; }
  int in_degree(int v) const { return rev_offsets[static_cast<size_t>(v) + 1] - rev_offsets[static_cast<size_t>(v)]; }
};

namespace detail {

/// Edges as read from a file, in file order, before sorting.
struct EdgeList {
  long long num_nodes = 0;
  std::vector<int> src, dst;
  std::vector<double> weights;
  bool has_weights = false;
  bool weights_integral = true;
};

[[noreturn]] inline void input_error(const std::string& path, long line, const std::string& what) {
  if (line > 0) throw InputError(path + ":" + std::to_string(line) + ": " + what);
  throw InputError(path + ": " + what);
}

inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/// True when the file name ends with `extension` (lower case given), in any letter case.
inline bool has_extension(const std::string& path, const char* extension) {
  size_t n = std::strlen(extension);
  size_t slash = path.find_last_of('/');
  size_t name_start = slash == std::string::npos ? 0 : slash + 1;
  if (path.size() < name_start + n + 1) return false;  // ".mtx" alone is a hidden file, not an extension
  for (size_t i = 0; i < n; ++i) {
    char c = path[path.size() - n + i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != extension[i]) return false;
  }
  return true;
}

/// A token [begin, end) of the buffer, quoted for messages (long tokens are shortened).
inline std::string quoted(const char* begin, const char* end) {
  std::string t(begin, static_cast<size_t>(end - begin));
  if (t.size() > 40) t = t.substr(0, 37) + "...";
  return "'" + t + "'";
}

/// The whole file, with a terminating NUL so strtod always stops inside the buffer.
inline std::vector<char> read_file(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) input_error(path, 0, std::string("cannot open: ") + std::strerror(errno));
  std::vector<char> data;
  char chunk[1 << 16];
  bool failed = false;
  if (std::fseek(f, 0, SEEK_END) == 0) {
    long size = std::ftell(f);
    if (size > 0) data.reserve(static_cast<size_t>(size) + 1);
    std::rewind(f);
  }
  for (;;) {
    size_t got = std::fread(chunk, 1, sizeof chunk, f);
    data.insert(data.end(), chunk, chunk + got);
    if (got < sizeof chunk) {
      failed = std::ferror(f) != 0;
      break;
    }
  }
  int saved = errno;
  std::fclose(f);
  if (failed) input_error(path, 0, std::string("cannot read: ") + std::strerror(saved));
  data.push_back('\0');
  return data;
}

/// Splits one line into blank-separated tokens; returns how many (only the first `cap` kept).
inline int split_tokens(const char* p, const char* end, const char** begins, const char** ends, int cap) {
  int count = 0;
  while (p < end) {
    while (p < end && is_blank(*p)) ++p;
    if (p == end) break;
    const char* start = p;
    while (p < end && !is_blank(*p)) ++p;
    if (count < cap) {
      begins[count] = start;
      ends[count] = p;
    }
    ++count;
  }
  return count;
}

/// True when [b, e) is an integer literal: optional sign, then decimal digits only.
inline bool is_integer_literal(const char* b, const char* e) {
  if (b < e && (*b == '+' || *b == '-')) ++b;
  if (b == e) return false;
  for (; b < e; ++b)
    if (*b < '0' || *b > '9') return false;
  return true;
}

/// Parses a vertex id token; `base` is 0 for edge lists and 1 for Matrix Market.
inline long long parse_id(const std::string& path, long line, const char* b, const char* e,
                          const char* what) {
  if (!is_integer_literal(b, e)) {
    char* stop = nullptr;
    std::strtod(b, &stop);
    if (stop == e) input_error(path, line, std::string(what) + " " + quoted(b, e) + " is not an integer");
    input_error(path, line, "non-numeric token " + quoted(b, e) + " (expected an integer " + what + ")");
  }
  bool negative = *b == '-';
  if (*b == '+' || *b == '-') ++b;
  long long value = 0;
  for (; b < e; ++b) {
    value = value * 10 + (*b - '0');
    if (value > INT_MAX) input_error(path, line, std::string(what) + " does not fit in a 32-bit int");
  }
  if (negative && value != 0) input_error(path, line, std::string("negative ") + what + " -" + std::to_string(value));
  return value;
}

/// Parses a weight token fully as a finite decimal number (an integer when `integer_only`).
inline double parse_weight(const std::string& path, long line, const char* b, const char* e,
                           bool& integral, bool integer_only = false) {
  bool is_integer = is_integer_literal(b, e);
  if (integer_only && !is_integer)
    input_error(path, line, "weight " + quoted(b, e) + " is not an integer (the matrix field is 'integer')");
  if (is_integer && e - b <= 16) {  // fast path: exact in a double, no strtod needed
    const char* d = b + (*b == '+' || *b == '-');
    long long value = 0;
    for (; d < e; ++d) value = value * 10 + (*d - '0');
    return static_cast<double>(*b == '-' ? -value : value);
  }
  char* stop = nullptr;
  double w = std::strtod(b, &stop);
  // strtod also reads hexadecimal literals, which Python's float() (the Python reader) rejects.
  if (stop != e || std::memchr(b, 'x', static_cast<size_t>(e - b)) || std::memchr(b, 'X', static_cast<size_t>(e - b)))
    input_error(path, line, "non-numeric token " + quoted(b, e) + " (expected a weight)");
  if (!std::isfinite(w)) input_error(path, line, "weight " + quoted(b, e) + " is not finite");
  if (!is_integer) integral = false;
  return w;
}

inline const char* line_end(const char* p, const char* end) {
  const void* nl = std::memchr(p, '\n', static_cast<size_t>(end - p));
  return nl ? static_cast<const char*>(nl) : end;
}

inline void reserve_for_lines(EdgeList& edges, const char* p, const char* end) {
  size_t lines = 1;
  for (const char* q = p; q < end; ++q) {
    q = static_cast<const char*>(std::memchr(q, '\n', static_cast<size_t>(end - q)));
    if (q == nullptr) break;
    ++lines;
  }
  edges.src.reserve(lines);
  edges.dst.reserve(lines);
}

/// Text edge list: "src dst [weight]" per line, 0-based; '#'/'%' lines and blank lines skipped.
inline EdgeList parse_edge_list(const std::string& path, const char* p, const char* end) {
  EdgeList edges;
  reserve_for_lines(edges, p, end);
  long line = 0;
  long first_data_line = 0;
  long long max_id = -1;
  const char* b[3];
  const char* e[3];
  while (p < end) {
    ++line;
    const char* le = line_end(p, end);
    const char* s = p;
    p = le + 1;
    while (s < le && is_blank(*s)) ++s;
    if (s == le || *s == '#' || *s == '%') continue;
    int columns = split_tokens(s, le, b, e, 3);
    if (columns < 2 || columns > 3)
      input_error(path, line, "expected 'src dst [weight]', found " + std::to_string(columns) +
                                  (columns == 1 ? " column" : " columns"));
    bool weighted = columns == 3;
    if (first_data_line == 0) {
      first_data_line = line;
      edges.has_weights = weighted;
      if (weighted) edges.weights.reserve(edges.src.capacity());
    } else if (weighted != edges.has_weights) {
      input_error(path, line, std::string(weighted ? "a weight here, but" : "no weight here, but") +
                                  " line " + std::to_string(first_data_line) +
                                  (edges.has_weights ? " has one" : " has none") +
                                  " (weights must be on every edge or on none)");
    }
    long long u = parse_id(path, line, b[0], e[0], "vertex id");
    long long v = parse_id(path, line, b[1], e[1], "vertex id");
    if (weighted) edges.weights.push_back(parse_weight(path, line, b[2], e[2], edges.weights_integral));
    if (u > max_id) max_id = u;
    if (v > max_id) max_id = v;
    edges.src.push_back(static_cast<int>(u));
    edges.dst.push_back(static_cast<int>(v));
  }
  if (max_id + 1 > INT_MAX) input_error(path, 0, "vertex id " + std::to_string(max_id) + " does not fit in a 32-bit int");
  edges.num_nodes = max_id + 1;
  return edges;
}

inline bool equals_ignore_case(const char* b, const char* e, const char* word) {
  size_t n = std::strlen(word);
  if (static_cast<size_t>(e - b) != n) return false;
  for (size_t i = 0; i < n; ++i) {
    char c = b[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != word[i]) return false;
  }
  return true;
}

/// Matrix Market coordinate (pattern|integer|real, general|symmetric); 1-based ids.
inline EdgeList parse_matrix_market(const std::string& path, const char* p, const char* end) {
  static const char* banner_help =
      "bad Matrix Market banner: expected '%%MatrixMarket matrix coordinate "
      "<pattern|integer|real> <general|symmetric>'";
  EdgeList edges;
  long line = 1;
  const char* b[5];
  const char* e[5];
  const char* le = line_end(p, end);
  int count = split_tokens(p, le, b, e, 5);
  if (count != 5 || !equals_ignore_case(b[0], e[0], "%%matrixmarket") || !equals_ignore_case(b[1], e[1], "matrix") ||
      !equals_ignore_case(b[2], e[2], "coordinate"))
    input_error(path, line, banner_help);
  bool pattern = equals_ignore_case(b[3], e[3], "pattern");
  if (!pattern && !equals_ignore_case(b[3], e[3], "integer") && !equals_ignore_case(b[3], e[3], "real"))
    input_error(path, line, banner_help + std::string(", got field ") + quoted(b[3], e[3]));
  bool integer_field = equals_ignore_case(b[3], e[3], "integer");
  bool symmetric = equals_ignore_case(b[4], e[4], "symmetric");
  if (!symmetric && !equals_ignore_case(b[4], e[4], "general"))
    input_error(path, line, banner_help + std::string(", got symmetry ") + quoted(b[4], e[4]));
  edges.has_weights = !pattern;
  p = le < end ? le + 1 : end;

  long long rows = -1, declared = 0, seen = 0;
  long size_line = 0;
  while (p < end) {
    ++line;
    le = line_end(p, end);
    const char* s = p;
    p = le + 1;
    while (s < le && is_blank(*s)) ++s;
    if (s == le || *s == '%' || *s == '#') continue;
    count = split_tokens(s, le, b, e, 3);
    if (rows < 0) {  // the size line
      if (count != 3) input_error(path, line, "bad size line: expected 'rows columns entries'");
      long long r = parse_id(path, line, b[0], e[0], "row count");
      long long c = parse_id(path, line, b[1], e[1], "column count");
      declared = parse_id(path, line, b[2], e[2], "entry count");
      size_line = line;
      if (r != c)
        input_error(path, line, "matrix is " + std::to_string(r) + " x " + std::to_string(c) +
                                    "; a graph needs a square matrix");
      rows = r;
      edges.num_nodes = rows;
      size_t reserve = static_cast<size_t>(declared) * (symmetric ? 2 : 1);
      edges.src.reserve(reserve);
      edges.dst.reserve(reserve);
      if (!pattern) edges.weights.reserve(reserve);
      continue;
    }
    int want = pattern ? 2 : 3;
    if (count != want)
      input_error(path, line, "expected " + std::to_string(want) + " columns in a " +
                                  (pattern ? "pattern" : "weighted") + " entry, found " + std::to_string(count));
    if (++seen > declared)
      input_error(path, line, "more entries than the " + std::to_string(declared) + " declared in the size line");
    long long i = parse_id(path, line, b[0], e[0], "row index");
    long long j = parse_id(path, line, b[1], e[1], "column index");
    if (i < 1 || i > rows || j < 1 || j > rows)
      input_error(path, line, "entry (" + std::to_string(i) + ", " + std::to_string(j) +
                                  ") is out of range for a " + std::to_string(rows) + " x " +
                                  std::to_string(rows) + " matrix");
    edges.src.push_back(static_cast<int>(i - 1));
    edges.dst.push_back(static_cast<int>(j - 1));
    if (!pattern) edges.weights.push_back(parse_weight(path, line, b[2], e[2], edges.weights_integral, integer_field));
  }
  if (rows < 0) input_error(path, 0, "missing the size line 'rows columns entries'");
  if (seen != declared)
    input_error(path, size_line, "the size line declares " + std::to_string(declared) + " entries but the file has " +
                                     std::to_string(seen));
  if (symmetric) {  // mirrors of the off-diagonal entries, after all the originals
    size_t original = edges.src.size();
    for (size_t k = 0; k < original; ++k) {
      if (edges.src[k] == edges.dst[k]) continue;
      edges.src.push_back(edges.dst[k]);
      edges.dst.push_back(edges.src[k]);
      if (!pattern) edges.weights.push_back(edges.weights[k]);
    }
  }
  return edges;
}

/// Appends v->u for every u->v that is not a self-loop, after all the originals.
inline void symmetrise(EdgeList& edges) {
  size_t original = edges.src.size();
  size_t loops = 0;
  for (size_t k = 0; k < original; ++k) loops += edges.src[k] == edges.dst[k];
  size_t total = 2 * original - loops;
  edges.src.reserve(total);
  edges.dst.reserve(total);
  if (edges.has_weights) edges.weights.reserve(total);
  for (size_t k = 0; k < original; ++k) {
    if (edges.src[k] == edges.dst[k]) continue;
    edges.src.push_back(edges.dst[k]);
    edges.dst.push_back(edges.src[k]);
    if (edges.has_weights) edges.weights.push_back(edges.weights[k]);
  }
}

/// Offsets from per-vertex counts (exclusive prefix sum, n + 1 entries).
inline std::vector<int> offsets_from_keys(const std::vector<int>& keys, int n) {
  std::vector<int> offsets(static_cast<size_t>(n) + 1, 0);
  for (int k : keys) ++offsets[static_cast<size_t>(k) + 1];
  for (size_t v = 0; v < static_cast<size_t>(n); ++v) offsets[v + 1] += offsets[v];
  return offsets;
}

/// Stable counting sort: returns the permutation that orders `keys` (ties keep their order).
inline std::vector<int> stable_order(const std::vector<int>& keys, const std::vector<int>& offsets,
                                     const std::vector<int>* within = nullptr) {
  std::vector<int> next(offsets.begin(), offsets.end() - 1);
  std::vector<int> order(keys.size());
  size_t m = keys.size();
  for (size_t k = 0; k < m; ++k) {
    int e = within ? (*within)[k] : static_cast<int>(k);
    order[static_cast<size_t>(next[static_cast<size_t>(keys[static_cast<size_t>(e)])]++)] = e;
  }
  return order;
}

inline Graph build_csr(EdgeList&& edges, const std::string& path) {
  if (edges.src.size() > static_cast<size_t>(INT_MAX) - 1)
    input_error(path, 0, std::to_string(edges.src.size()) + " edges do not fit in 32-bit edge ids");
  Graph g;
  g.path = path;
  g.num_nodes = static_cast<int>(edges.num_nodes);
  g.num_edges = static_cast<int>(edges.src.size());
  g.has_weights = edges.has_weights;
  g.weights_integral = edges.has_weights ? edges.weights_integral : true;
  int n = g.num_nodes;
  size_t m = edges.src.size();

  // LSD radix sort: stable by dst, then stable by src, gives a stable sort by (src, dst).
  std::vector<int> by_dst = stable_order(edges.dst, offsets_from_keys(edges.dst, n));
  g.offsets = offsets_from_keys(edges.src, n);
  std::vector<int> order = stable_order(edges.src, g.offsets, &by_dst);
  by_dst = std::vector<int>();

  g.sources.resize(m);
  g.targets.resize(m);
  for (size_t k = 0; k < m; ++k) {
    g.sources[k] = edges.src[static_cast<size_t>(order[k])];
    g.targets[k] = edges.dst[static_cast<size_t>(order[k])];
  }
  if (g.has_weights) {
    g.weights.resize(m);
    for (size_t k = 0; k < m; ++k) g.weights[k] = edges.weights[static_cast<size_t>(order[k])];
  }
  edges = EdgeList();
  order = std::vector<int>();

  // Forward edges are in src order, so bucketing them by dst keeps (dst, src, edge id) order.
  g.rev_offsets = offsets_from_keys(g.targets, n);
  g.rev_edge_ids = stable_order(g.targets, g.rev_offsets);
  g.rev_sources.resize(m);
  for (size_t k = 0; k < m; ++k) g.rev_sources[k] = g.sources[static_cast<size_t>(g.rev_edge_ids[k])];
  return g;
}

}  // namespace detail

/// Reads an edge list or Matrix Market file; `undirected` adds the reverse of every non-loop edge.
inline Graph read_graph(const std::string& path, bool undirected) {
  if (detail::has_extension(path, ".npz"))
    detail::input_error(path, 0,
                        "the binary .npz graph cache is for the Python tools; convert it to an edge list "
                        "first, e.g. `starc graph convert g.npz g.el`");
  std::vector<char> data = detail::read_file(path);
  const char* begin = data.data();
  const char* end = begin + data.size() - 1;  // without the terminating NUL
  if (end - begin >= 4 && std::memcmp(begin, "PK\x03\x04", 4) == 0)
    detail::input_error(path, 0,
                        "this is a zip archive (an .npz graph cache?); the binary cache is for the Python "
                        "tools, convert it first: `starc graph convert g.npz g.el`");
  // The format follows the extension, as in starc.graphs.load_graph.
  detail::EdgeList edges = detail::has_extension(path, ".mtx")
                               ? detail::parse_matrix_market(path, begin, end)
                               : detail::parse_edge_list(path, begin, end);
  data = std::vector<char>();
  if (undirected) detail::symmetrise(edges);
  return detail::build_csr(std::move(edges), path);
}

}  // namespace starc

#endif  // STARC_GRAPH_HPP
