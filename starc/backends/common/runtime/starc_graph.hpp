// starc runtime: graph reading (text edge list and Matrix Market) into forward and reverse CSR.
//
// Part of the shared, header-only C++17 runtime of starc-generated programs (CUDA, SYCL,
// OpenACC and MPI hosts). It accepts exactly the formats of the Python reader
// `starc.graphs.load_graph` and builds the same CSR arrays, edge for edge:
//   * edges sorted by (src, dst) with a stable sort, so duplicates keep their file order;
//   * duplicates and self-loops kept; `undirected` appends v->u for every non-loop u->v;
//   * the reverse CSR lists in-edges by (dst, src, forward edge id).
// The format follows the extension: ".mtx" Matrix Market, ".sg" the binary CSR of
// starc_graph_binary.hpp, ".npz" rejected (a numpy archive), anything else a text edge list.
// Errors are InputError("path:line: what"), or "path: what" for whole-file problems. The file
// is read line by line as it arrives, so reading stops at the first bad line; a line over
// 1 MiB, a vertex id at or past the limit (2^31-1, or --max-vertices) and a graph larger than
// the available memory ($STARC_MAX_MEMORY when set) are refused before anything is allocated
// for them -- the same rules as the Python reader (starc.inputs).
#ifndef STARC_GRAPH_HPP
#define STARC_GRAPH_HPP

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include <sys/stat.h>  // fstat: a directory given as a file
#include <unistd.h>    // sysconf: the available memory

#include "starc_entry.hpp"

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
  bool mirrored = false;   // the reader added the reverse of every edge: symmetric by construction
  std::string path;

  int out_degree(int v) const { return offsets[static_cast<size_t>(v) + 1] - offsets[static_cast<size_t>(v)]; }
  int in_degree(int v) const { return rev_offsets[static_cast<size_t>(v) + 1] - rev_offsets[static_cast<size_t>(v)]; }

  /// The order in which a binned kernel's work items take the vertices (degree_binned_order
  /// over the in- or out-degrees), built on first use.
  const std::vector<int>& binned_order(bool inward, int run);
  /// Forgets what was derived from the edges (binned orders), after the edges changed.
  void edges_changed() {
    binned_order_in_.clear();
    binned_order_out_.clear();
  }

 private:
  std::vector<int> binned_order_in_, binned_order_out_;
};

/// A permutation of the vertices of CSR `offsets` for a binned kernel's work items: the
/// vertices of degree below `run` sorted by degree (ids ascending within one), in whole runs of
/// `run` items (the lanes of a warp then do about as much work as each other), and the
/// heavier ones in id order, also `run` at a time, their runs spread evenly among the light
/// ones (so the hubs do not crowd into a few work-groups); what is left of each list (less than
/// a run) at the end. starc/teaching/simt.py's model builds the same order.
inline std::vector<int> degree_binned_order(const std::vector<int>& offsets, int run) {
  const int n = static_cast<int>(offsets.size()) - 1;
  std::vector<int> starts(static_cast<size_t>(run) + 1, 0), heavy, light;
  for (int v = 0; v < n; ++v) {
    const int degree = offsets[static_cast<size_t>(v) + 1] - offsets[static_cast<size_t>(v)];
    if (degree < run) starts[static_cast<size_t>(degree) + 1]++;
    else heavy.push_back(v);
  }
  for (size_t d = 0; d < static_cast<size_t>(run); ++d) starts[d + 1] += starts[d];
  light.resize(static_cast<size_t>(starts[static_cast<size_t>(run)]));
  for (int v = 0; v < n; ++v) {
    const int degree = offsets[static_cast<size_t>(v) + 1] - offsets[static_cast<size_t>(v)];
    if (degree < run) light[static_cast<size_t>(starts[static_cast<size_t>(degree)]++)] = v;
  }
  const size_t width = static_cast<size_t>(run), heavy_runs = heavy.size() / width;
  const size_t runs = light.size() / width + heavy_runs;
  std::vector<int> order;
  order.reserve(static_cast<size_t>(n));
  size_t light_taken = 0, heavy_taken = 0;
  for (size_t k = 0; k < runs; ++k) {
    // the j-th heavy run goes to run j * runs / heavy_runs
    const bool take_heavy = heavy_taken < heavy_runs && k == heavy_taken * runs / heavy_runs;
    const std::vector<int>& from = take_heavy ? heavy : light;
    const size_t first = (take_heavy ? heavy_taken++ : light_taken++) * width;
    order.insert(order.end(), from.begin() + static_cast<std::ptrdiff_t>(first),
                 from.begin() + static_cast<std::ptrdiff_t>(first + width));
  }
  order.insert(order.end(), light.begin() + static_cast<std::ptrdiff_t>(light_taken * width), light.end());
  order.insert(order.end(), heavy.begin() + static_cast<std::ptrdiff_t>(heavy_taken * width), heavy.end());
  return order;
}

inline const std::vector<int>& Graph::binned_order(bool inward, int run) {
  std::vector<int>& order = inward ? binned_order_in_ : binned_order_out_;
  if (order.empty() && num_nodes > 0) order = degree_binned_order(inward ? rev_offsets : offsets, run);
  return order;
}

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

/// A token [begin, end) of the buffer, quoted for messages (long tokens are shortened) with
/// its control bytes escaped as Python's repr shows them (a NUL would cut the message short,
/// others garble the terminal).
inline std::string quoted(const char* begin, const char* end) {
  std::string t(begin, static_cast<size_t>(end - begin));
  if (t.size() > 40) t = t.substr(0, 37) + "...";
  std::string out = "'";
  for (char ch : t) {
    const unsigned char c = static_cast<unsigned char>(ch);
    static const char hex[] = "0123456789abcdef";
    if (c == '\\') out += "\\\\";
    else if (c == '\t') out += "\\t";
    else if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c < 0x20 || c == 0x7f) out += std::string("\\x") + hex[c >> 4] + hex[c & 15];
    else out += static_cast<char>(c);
  }
  return out + "'";
}

/// The most vertices a graph may have: 2^31-1 (32-bit ids), or less after --max-vertices.
inline long long& vertex_limit() {
  static long long limit = INT_MAX;
  return limit;
}

/// The most edges a graph may have: 2^31-2 (32-bit edge ids), unless the reader keeps 64-bit
/// edge counts and holds part of the graph (MPI raises it before reading).
inline long long& edge_limit() {
  static long long limit = static_cast<long long>(INT_MAX) - 1;
  return limit;
}

/// The part of the graph this machine's processes hold, for the memory check: 1, or under MPI
/// the share of the ranks on this node.
inline double& memory_share() {
  static double share = 1.0;
  return share;
}

constexpr size_t kMaxLineBytes = size_t(1) << 20;  // a longer line is not a graph line
// Peak bytes per vertex and per edge while the graph is built and used: the same rule as
// starc.inputs.graph_bytes, so both readers refuse the same graphs.
constexpr double kBytesPerVertex = 48, kBytesPerEdge = 64;

/// Bytes a graph may use: $STARC_MAX_MEMORY when set, else the available physical memory,
/// else 0 (unknown: no check).
inline double available_memory() {
  const char* setting = std::getenv("STARC_MAX_MEMORY");
  if (setting && *setting) {
    char* stop = nullptr;
    double value = std::strtod(setting, &stop);
    double scale = 1;
    switch (*stop) {
      case 'k': case 'K': scale = 1024.0; ++stop; break;
      case 'm': case 'M': scale = 1024.0 * 1024; ++stop; break;
      case 'g': case 'G': scale = 1024.0 * 1024 * 1024; ++stop; break;
      case 't': case 'T': scale = 1024.0 * 1024 * 1024 * 1024; ++stop; break;
      default: break;
    }
    if (*stop == '\0' && value > 0) return value * scale;
  }
#if defined(_SC_AVPHYS_PAGES) && defined(_SC_PAGESIZE)
  long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) return static_cast<double>(pages) * static_cast<double>(page);
#endif
  return 0;
}

/// Refuses, before the CSR arrays are allocated, a graph over the vertex limit or larger than
/// the available memory.
inline void check_graph_size(const std::string& path, long line, long long num_nodes, long long num_edges) {
  long long limit = vertex_limit();
  if (num_nodes > limit)
    input_error(path, line, std::to_string(num_nodes) + " vertices are more than the limit of " +
                                std::to_string(limit) + " (--max-vertices; 32-bit ids)");
  if (num_edges > edge_limit())
    input_error(path, line, std::to_string(num_edges) + " edges do not fit in " +
                                (edge_limit() < INT_MAX ? "32-bit edge ids" : "this reader's edge counts"));
  double memory = available_memory();
  double need = memory_share() * (kBytesPerVertex * static_cast<double>(num_nodes) +
                                  kBytesPerEdge * static_cast<double>(num_edges));
  if (memory > 0 && need > memory) {
    char text[200];
    std::snprintf(text, sizeof text, "%lld vertices and %lld edges need about %.1f GiB of memory but %.1f GiB is "
                  "available (the vertex count is the largest id + 1: are the ids dense?)",
                  num_nodes, num_edges, need / (1 << 30), memory / (1 << 30));
    input_error(path, line, text);
  }
}

/// `path` opened for reading, or "path: cannot open: why" in the Python reader's words (fopen
/// opens a directory on Linux, and only the first read would fail).
inline std::FILE* open_input(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) input_error(path, 0, std::string("cannot open: ") + std::strerror(errno));
  struct stat info;
  if (::fstat(::fileno(f), &info) == 0 && S_ISDIR(info.st_mode)) {
    std::fclose(f);
    input_error(path, 0, "cannot open: it is a directory");
  }
  return f;
}

/// A file open for reading, closed with its scope; "path: cannot open: why" if it cannot be.
struct InputFile {
  std::FILE* f;
  explicit InputFile(const std::string& path) : f(open_input(path)) {}
  ~InputFile() { std::fclose(f); }
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
};

/// Reads `path` in blocks and calls handler.line(number, begin, end) for every line, without
/// its newline, as it arrives: reading stops at the first bad line (the handler throws), and a
/// line longer than kMaxLineBytes (binary data, /dev/zero) is an InputError. Each line handed
/// over is followed by a '\n' in memory, so strtod always stops inside the buffer.
template <class Handler>
inline void for_each_line(const std::string& path, Handler& handler) {
  InputFile file(path);
  std::FILE* f = file.f;
  std::vector<char> pending;  // the start of a line whose newline has not arrived yet
  std::vector<char> block(size_t(1) << 20);
  long number = 0;
  bool first = true;
  for (;;) {
    size_t got = std::fread(block.data(), 1, block.size(), f);
    if (got == 0) {
      if (std::ferror(f)) input_error(path, 0, std::string("cannot read: ") + std::strerror(errno));
      break;
    }
    if (first && got >= 4 && std::memcmp(block.data(), "PK\x03\x04", 4) == 0)
      input_error(path, 0,
                  "this is a zip archive (an .npz graph?); convert it first: `starc graph convert g.npz g.sg`");
    if (first && got >= 8 && std::memcmp(block.data(), "STARC-SG", 8) == 0)
      input_error(path, 0, "this is a starc binary graph; name it with the .sg extension");
    first = false;
    const char* p = block.data();
    const char* end = p + got;
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', got));
    if (nl && !pending.empty()) {  // complete the pending line
      pending.insert(pending.end(), p, nl + 1);
      handler.line(++number, pending.data(), pending.data() + pending.size() - 1);
      pending.clear();
      p = nl + 1;
      nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
    }
    while (nl) {
      handler.line(++number, p, nl);
      p = nl + 1;
      nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
    }
    pending.insert(pending.end(), p, end);
    if (pending.size() > kMaxLineBytes)
      input_error(path, number + 1, "line is longer than 1 MiB; is this a text graph file?");
  }
  if (!pending.empty()) {
    pending.push_back('\n');
    handler.line(++number, pending.data(), pending.data() + pending.size() - 1);
  }
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

/// Parses a vertex id token. A negative id is refused here unless `range_checked` (Matrix
/// Market's 1-based ids: the caller says "out of range 1..n", as the Python reader does).
inline long long parse_id(const std::string& path, long line, const char* b, const char* e,
                          const char* what, long long largest = INT_MAX, bool range_checked = false) {
  // the Python reader's words (starc/graphs/readers.py), so both name a bad line alike
  if (!is_integer_literal(b, e)) input_error(path, line, std::string(what) + " " + quoted(b, e) + " is not an integer");
  bool negative = *b == '-';
  if (*b == '+' || *b == '-') ++b;
  long long value = 0;
  for (; b < e; ++b) {
    value = value * 10 + (*b - '0');
    if (value > largest)
      input_error(path, line, std::string(what) + (largest == INT_MAX ? " does not fit in a 32-bit int" : " is too large"));
  }
  if (negative && value != 0) {
    if (range_checked) return -value;
    input_error(path, line, std::string("negative ") + what + " -" + std::to_string(value));
  }
  return value;
}

/// Parses a weight token fully as a finite decimal number (an integer when `integer_only`).
inline double parse_weight(const std::string& path, long line, const char* b, const char* e,
                           bool& integral, bool integer_only = false) {
  bool is_integer = is_integer_literal(b, e);
  if (integer_only && !is_integer)
    input_error(path, line, "weight " + quoted(b, e) + " is not an integer");
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
    input_error(path, line, "weight " + quoted(b, e) + " is not a number");
  if (!std::isfinite(w)) input_error(path, line, "weight " + quoted(b, e) + " is not finite");
  if (!is_integer) integral = false;
  return w;
}

/// Text edge list: "src dst [weight]" per line, 0-based; '#'/'%' lines and blank lines skipped.
struct EdgeListParser {
  const std::string& path;
  EdgeList edges;
  long first_data_line = 0;
  long long max_id = -1;

  /// An id token, refused past the vertex limit in the Python reader's words (the token as
  /// written when it has more digits than a 64-bit id).
  long long vertex_id(long number, const char* role, const char* b, const char* e) const {
    const long long wide = 100000000000000000LL;  // 10^17: no overflow parsing up to it
    bool long_token = is_integer_literal(b, e) && *b != '-' && e - b > 17;
    long long id = long_token ? wide : parse_id(path, number, b, e, (std::string(role) + " id").c_str(), wide);
    if (id >= vertex_limit())
      input_error(path, number, std::string(role) + " id " + (long_token ? std::string(b, e) : std::to_string(id)) +
                                    " is larger than the largest vertex id allowed, " +
                                    std::to_string(vertex_limit() - 1) + " (--max-vertices; 32-bit ids)");
    return id;
  }

  void line(long number, const char* s, const char* le) {
    while (s < le && is_blank(*s)) ++s;
    if (s == le || *s == '#' || *s == '%') return;
    const char* b[3];
    const char* e[3];
    int columns = split_tokens(s, le, b, e, 3);
    if (columns < 2 || columns > 3)
      input_error(path, number, "expected 2 or 3 columns, found " + std::to_string(columns));
    bool weighted = columns == 3;
    if (first_data_line == 0) {
      first_data_line = number;
      edges.has_weights = weighted;
    } else if (weighted != edges.has_weights) {
      input_error(path, number, "weights on some lines only: this line has " + std::to_string(columns) +
                                    " columns, earlier lines have " + std::to_string(edges.has_weights ? 3 : 2));
    }
    long long u = vertex_id(number, "source", b[0], e[0]);
    long long v = vertex_id(number, "target", b[1], e[1]);
    long long larger = u > v ? u : v;
    if (weighted) edges.weights.push_back(parse_weight(path, number, b[2], e[2], edges.weights_integral));
    if (larger > max_id) max_id = larger;
    edges.src.push_back(static_cast<int>(u));
    edges.dst.push_back(static_cast<int>(v));
  }

  EdgeList finish() {
    edges.num_nodes = max_id + 1;
    check_graph_size(path, 0, edges.num_nodes, static_cast<long long>(edges.src.size()));
    return std::move(edges);
  }
};

/// A banner word as the Python reader quotes it: lower case.
inline std::string lower_quoted(const char* b, const char* e) {
  std::string word(b, e);
  for (char& c : word) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return quoted(word.data(), word.data() + word.size());
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
struct MatrixMarketParser {
  const std::string& path;
  EdgeList edges;
  bool pattern = false, integer_field = false, symmetric = false;
  long long rows = -1, declared = 0, seen = 0;
  long size_line = 0;
  bool saw_banner = false;

  void banner(const char* p, const char* le) {
    // the Python reader's checks and words, in its order (starc/graphs/readers.py)
    saw_banner = true;
    const char* b[5];
    const char* e[5];
    int count = split_tokens(p, le, b, e, 5);
    if (count < 1 || !equals_ignore_case(b[0], e[0], "%%matrixmarket"))
      input_error(path, 1, "missing '%%MatrixMarket' banner");
    if (count != 5 || !equals_ignore_case(b[1], e[1], "matrix"))
      input_error(path, 1, "bad banner: expected '%%MatrixMarket matrix coordinate <field> <symmetry>'");
    if (equals_ignore_case(b[2], e[2], "array"))
      input_error(path, 1, "array (dense) Matrix Market files are not supported; use coordinate");
    if (!equals_ignore_case(b[2], e[2], "coordinate"))
      input_error(path, 1, "unknown Matrix Market format " + lower_quoted(b[2], e[2]));
    pattern = equals_ignore_case(b[3], e[3], "pattern");
    if (!pattern && !equals_ignore_case(b[3], e[3], "integer") && !equals_ignore_case(b[3], e[3], "real"))
      input_error(path, 1, "unsupported field " + lower_quoted(b[3], e[3]) + " (expected pattern, integer or real)");
    integer_field = equals_ignore_case(b[3], e[3], "integer");
    symmetric = equals_ignore_case(b[4], e[4], "symmetric");
    if (!symmetric && !equals_ignore_case(b[4], e[4], "general"))
      input_error(path, 1, "unsupported symmetry " + lower_quoted(b[4], e[4]) + " (expected general or symmetric)");
    edges.has_weights = !pattern;
  }

  void line(long number, const char* s, const char* le) {
    if (number == 1) return banner(s, le);
    while (s < le && is_blank(*s)) ++s;
    if (s == le || *s == '%' || *s == '#') return;
    const char* b[3];
    const char* e[3];
    int count = split_tokens(s, le, b, e, 3);
    if (rows < 0) {  // the size line
      if (count != 3) input_error(path, number, "bad size line: expected 'rows columns entries'");
      long long r = parse_id(path, number, b[0], e[0], "row count");
      long long c = parse_id(path, number, b[1], e[1], "column count");
      declared = parse_id(path, number, b[2], e[2], "entry count", edge_limit() < INT_MAX ? INT_MAX : edge_limit());
      size_line = number;
      if (r != c)
        input_error(path, number, "matrix is " + std::to_string(r) + "x" + std::to_string(c) +
                                      "; an adjacency matrix must be square");
      // The size line fixes the size: refuse an impossible one before reading the entries.
      check_graph_size(path, number, r, declared * (symmetric ? 2 : 1));
      rows = r;
      edges.num_nodes = rows;
      // Reserve for what is declared, up to 2^24 entries: a false count must not allocate.
      size_t reserve = static_cast<size_t>(declared < (1 << 24) ? declared : (1 << 24)) * (symmetric ? 2 : 1);
      edges.src.reserve(reserve);
      edges.dst.reserve(reserve);
      if (!pattern) edges.weights.reserve(reserve);
      return;
    }
    int want = pattern ? 2 : 3;
    if (count != want)
      input_error(path, number, "expected " + std::to_string(want) + " columns, found " + std::to_string(count));
    if (++seen > declared)
      input_error(path, number, "more entries than the " + std::to_string(declared) + " the size line declares");
    long long i = parse_id(path, number, b[0], e[0], "source id", INT_MAX, true);
    if (i < 1 || i > rows)
      input_error(path, number, "source id " + std::to_string(i) + " out of range 1.." + std::to_string(rows));
    long long j = parse_id(path, number, b[1], e[1], "target id", INT_MAX, true);
    if (j < 1 || j > rows)
      input_error(path, number, "target id " + std::to_string(j) + " out of range 1.." + std::to_string(rows));
    edges.src.push_back(static_cast<int>(i - 1));
    edges.dst.push_back(static_cast<int>(j - 1));
    if (!pattern) edges.weights.push_back(parse_weight(path, number, b[2], e[2], edges.weights_integral, integer_field));
  }

  EdgeList finish() {
    if (!saw_banner) banner("", "");  // an empty file: the banner error
    if (rows < 0) input_error(path, 0, "missing size line");
    if (seen != declared)
      input_error(path, size_line, "the size line declares " + std::to_string(declared) +
                                       " entries but the file has " + std::to_string(seen));
    if (symmetric) {  // mirrors of the off-diagonal entries, after all the originals
      size_t original = edges.src.size();
      for (size_t k = 0; k < original; ++k) {
        if (edges.src[k] == edges.dst[k]) continue;
        edges.src.push_back(edges.dst[k]);
        edges.dst.push_back(edges.src[k]);
        if (!pattern) edges.weights.push_back(edges.weights[k]);
      }
    }
    return std::move(edges);
  }
};

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
inline std::vector<int> stable_order(const std::vector<int>& keys, const std::vector<int>& offsets) {
  std::vector<int> next(offsets.begin(), offsets.end() - 1);
  std::vector<int> order(keys.size());
  size_t m = keys.size();
  for (size_t k = 0; k < m; ++k) order[static_cast<size_t>(next[static_cast<size_t>(keys[k])]++)] = static_cast<int>(k);
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

  // Bucket the edges by src (a counting sort), each as the key (dst << 32 | file position),
  // then sort each row's keys: the order is (src, dst, file position), the stable sort by
  // (src, dst), with one scatter and short cache-local sorts instead of two LSD passes.
  g.offsets = offsets_from_keys(edges.src, n);
  std::vector<uint64_t> keys(m);
  {
    std::vector<int> next(g.offsets.begin(), g.offsets.end() - 1);
    for (size_t k = 0; k < m; ++k)
      keys[static_cast<size_t>(next[static_cast<size_t>(edges.src[k])]++)] =
          uint64_t(static_cast<uint32_t>(edges.dst[k])) << 32 | k;
  }
  edges.src = std::vector<int>();  // the keys hold all of it now: free before the CSR arrays
  edges.dst = std::vector<int>();
  g.sources.resize(m);
  g.targets.resize(m);
  for (size_t v = 0; v < static_cast<size_t>(n); ++v) {
    auto first = keys.begin() + g.offsets[v], last = keys.begin() + g.offsets[v + 1];
    std::sort(first, last);
    std::fill(g.sources.begin() + g.offsets[v], g.sources.begin() + g.offsets[v + 1], static_cast<int>(v));
  }
  for (size_t k = 0; k < m; ++k) g.targets[k] = static_cast<int>(keys[k] >> 32);
  if (g.has_weights) {
    g.weights.resize(m);
    for (size_t k = 0; k < m; ++k) g.weights[k] = edges.weights[static_cast<size_t>(keys[k] & 0xffffffffu)];
  }
  edges = EdgeList();
  keys = std::vector<uint64_t>();

  // Forward edges are in src order, so bucketing them by dst keeps (dst, src, edge id) order.
  g.rev_offsets = offsets_from_keys(g.targets, n);
  g.rev_edge_ids = stable_order(g.targets, g.rev_offsets);
  g.rev_sources.resize(m);
  for (size_t k = 0; k < m; ++k) g.rev_sources[k] = g.sources[static_cast<size_t>(g.rev_edge_ids[k])];
  return g;
}

/// A .sg file (starc_graph_binary.hpp, included at the end of this header).
inline Graph read_binary_graph(const std::string& path, bool undirected);

}  // namespace detail

/// Reads an edge list, Matrix Market or .sg file; `undirected` adds the reverse of every
/// non-loop edge (a .sg file written symmetrised gets none).
STARC_ENTRY Graph read_graph(const std::string& path, bool undirected);

#if STARC_DEFINE_ENTRIES
STARC_ENTRY Graph read_graph(const std::string& path, bool undirected) {
  if (detail::has_extension(path, ".npz"))
    detail::input_error(path, 0,
                        "an .npz graph is for the Python tools; convert it to the binary graph every "
                        "reader loads first, e.g. `starc graph convert g.npz g.sg`");
  if (detail::has_extension(path, ".sg")) return detail::read_binary_graph(path, undirected);
  // The format follows the extension, as in starc.graphs.load_graph.
  detail::EdgeList edges;
  if (detail::has_extension(path, ".mtx")) {
    detail::MatrixMarketParser parser{path, {}};
    detail::for_each_line(path, parser);
    edges = parser.finish();
  } else {
    detail::EdgeListParser parser{path, {}};
    detail::for_each_line(path, parser);
    edges = parser.finish();
  }
  if (undirected) {
    detail::check_graph_size(path, 0, edges.num_nodes, 2 * static_cast<long long>(edges.src.size()));
    detail::symmetrise(edges);
  }
  Graph g = detail::build_csr(std::move(edges), path);
  g.mirrored = undirected;
  return g;
}
#endif

}  // namespace starc

#include "starc_graph_binary.hpp"

#endif  // STARC_GRAPH_HPP
