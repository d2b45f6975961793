// starc runtime: the text graph formats' parsers (edge list and Matrix Market): lines read as
// they arrive, split into tokens, ids and weights checked in the Python reader's words, edges
// gathered into a detail::EdgeList for starc_graph.hpp to build the CSR from.
//
// starc_graph.hpp includes this header between the size limits and EdgeList it uses and
// read_graph, which uses it; the update streams (starc_updates.hpp) and MPI's reader use its
// line reader and token parsers too. Included first, it includes starc_graph.hpp, which
// includes it back at that point: hence the guard after the include.
#include "starc_graph.hpp"

#ifndef STARC_GRAPH_TEXT_HPP
#define STARC_GRAPH_TEXT_HPP

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace starc {
namespace detail {

inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

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

}  // namespace detail
}  // namespace starc

#endif  // STARC_GRAPH_TEXT_HPP
