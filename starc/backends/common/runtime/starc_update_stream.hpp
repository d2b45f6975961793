// starc runtime: update streams (issue 31), the 'a u v [w]' / 'd u v' reader with the messages
// of starc/graphs/updates.py, a run's batches cut from them, and their weights checked against
// a program's propEdge type; starc_updates.hpp applies the batches to the CSR.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "starc_graph.hpp"

namespace starc {

/// Updates in stream order: kinds ('d' / 'a'), endpoints, the additions' weights (0 for a
/// deletion; empty when the additions carry none), and the file line (update) each comes from
/// (a symmetrised stream has two updates for one line, and batches count lines).
struct UpdateStream {
  std::vector<char> kinds;
  std::vector<int> src, dst;
  std::vector<double> weights;
  std::vector<long long> origin;
  bool has_weights = false;
  bool weights_integral = true;
  std::string path;

  size_t size() const { return kinds.size(); }
  long long line_count() const { return origin.empty() ? 0 : origin.back() + 1; }
};

namespace detail {

struct UpdateParser {
  const std::string& path;
  long long num_nodes;
  UpdateStream stream;
  long first_addition_line = 0;

  long long endpoint(long number, const char* b, const char* e, const char* role) {
    if (!is_integer_literal(b, e))
      input_error(path, number, std::string(role) + " id " + quoted(b, e) + " is not an integer");
    bool negative = *b == '-';
    const char* d = b + (*b == '+' || *b == '-');
    while (e - d > 1 && *d == '0') ++d;
    // the value as the Python reader shows it: sign, no '+', no leading zeros; past 18 digits
    // it is out of range whatever it is, so it is only shown, not converted
    std::string digits(d, e);
    long long value = digits.size() > 18 ? -1 : std::stoll(digits);
    if (negative && value > 0) value = -value;
    if (value < 0 || value >= num_nodes) {
      std::string top = num_nodes > 0 ? "0.." + std::to_string(num_nodes - 1)
                                      : std::string("none: the graph has no vertices");
      std::string shown = (negative && digits != "0" ? "-" : "") + digits;
      input_error(path, number, std::string(role) + " id " + shown + " is not a vertex of the graph (" +
                                    top + "); updates do not add vertices");
    }
    return value;
  }

  void line(long number, const char* s, const char* le) {
    while (s < le && is_blank(*s)) ++s;
    if (s == le || *s == '#' || *s == '%') return;
    const char* b[4];
    const char* e[4];
    int fields = split_tokens(s, le, b, e, 4);
    char kind = e[0] - b[0] == 1 ? *b[0] : '?';
    if (kind != 'a' && kind != 'd')
      input_error(path, number, "an update starts with 'a' (add) or 'd' (delete), not " + quoted(b[0], e[0]));
    if (fields < 3 || fields > (kind == 'a' ? 4 : 3))
      input_error(path, number, std::string("expected '") +
                                    (kind == 'a' ? "a SRC DST [WEIGHT]" : "d SRC DST (a deletion has no weight)") +
                                    "', found " + std::to_string(fields) + " fields");
    long long u = endpoint(number, b[1], e[1], "source");
    long long v = endpoint(number, b[2], e[2], "target");
    double weight = 0;
    if (fields == 4) {
      bool integral = true;
      weight = parse_update_weight(number, b[3], e[3], integral);
      stream.weights_integral = stream.weights_integral && integral;
    }
    if (kind == 'a') {
      bool has = fields == 4;
      if (first_addition_line == 0) {
        first_addition_line = number;
        stream.has_weights = has;
      } else if (has != stream.has_weights) {
        input_error(path, number, std::string("weights on some additions only: this line has ") +
                                      (has ? "a" : "no") + " weight, line " +
                                      std::to_string(first_addition_line) + (has ? " has none" : " has one"));
      }
    }
    stream.kinds.push_back(kind);
    stream.src.push_back(static_cast<int>(u));
    stream.dst.push_back(static_cast<int>(v));
    stream.weights.push_back(weight);
    stream.origin.push_back(static_cast<long long>(stream.origin.size()));
  }

  double parse_update_weight(long number, const char* b, const char* e, bool& integral) {
    // integral as the Python reader says it: a whole value ("2.0" too)
    if (is_integer_literal(b, e)) return parse_weight(path, number, b, e, integral);
    char* stop = nullptr;
    double w = std::strtod(b, &stop);
    if (stop != e || std::memchr(b, 'x', static_cast<size_t>(e - b)) || std::memchr(b, 'X', static_cast<size_t>(e - b)))
      input_error(path, number, "weight " + quoted(b, e) + " is not a number");
    if (!std::isfinite(w)) input_error(path, number, "weight " + quoted(b, e) + " is not finite");
    integral = std::floor(w) == w;
    return w;
  }
};

}  // namespace detail

/// Reads an update stream for a graph of `num_nodes` vertices; a bad line is an InputError
/// "path:line: what", with the messages of the Python reader.
inline UpdateStream read_updates(const std::string& path, long long num_nodes) {
  detail::UpdateParser parser{path, num_nodes, {}, 0};
  parser.stream.path = path;
  detail::for_each_line(path, parser);
  if (!parser.stream.has_weights) parser.stream.weights.clear();
  return std::move(parser.stream);
}

/// Every update followed by its reverse v -> u (not for a self-loop): an --undirected run's.
inline UpdateStream symmetrised(const UpdateStream& s) {
  UpdateStream out;
  out.has_weights = s.has_weights;
  out.weights_integral = s.weights_integral;
  out.path = s.path;
  for (size_t i = 0; i < s.size(); ++i) {
    for (int twin = 0; twin < (s.src[i] != s.dst[i] ? 2 : 1); ++twin) {
      out.kinds.push_back(s.kinds[i]);
      out.src.push_back(twin ? s.dst[i] : s.src[i]);
      out.dst.push_back(twin ? s.src[i] : s.dst[i]);
      if (s.has_weights) out.weights.push_back(s.weights[i]);
      out.origin.push_back(s.origin[i]);
    }
  }
  return out;
}

/// The updates of the file's lines [first, last) of `s` with `kind` ('d' or 'a'; 0: every
/// update), in order.
struct BatchPart {
  std::vector<int> src, dst;
  std::vector<double> weights;  // empty when the stream has none
};

inline BatchPart batch_part(const UpdateStream& s, long long first, long long last, char kind) {
  BatchPart part;
  auto lo = std::lower_bound(s.origin.begin(), s.origin.end(), first) - s.origin.begin();
  auto hi = std::lower_bound(s.origin.begin(), s.origin.end(), last) - s.origin.begin();
  for (auto i = static_cast<size_t>(lo); i < static_cast<size_t>(hi); ++i) {
    if (kind != 0 && s.kinds[i] != kind) continue;
    part.src.push_back(s.src[i]);
    part.dst.push_back(s.dst[i]);
    if (s.has_weights) part.weights.push_back(s.weights[i]);
  }
  return part;
}

/// The weights of a batch part's updates as T (zero where the stream carries none).
template <class T>
inline std::vector<T> part_weights(const BatchPart& part) {
  std::vector<T> out(part.src.size(), T());
  for (size_t i = 0; i < part.weights.size() && i < out.size(); ++i) out[i] = static_cast<T>(part.weights[i]);
  return out;
}

namespace detail {

/// The line number and the weight token of the update with `index` (the file's update lines
/// counted from 0), read back from the file on a weight's error path: the stream keeps no
/// line numbers.
struct UpdateLineFinder {
  long long index;
  long long seen = 0;
  long number = 0;
  std::string token;

  void line(long n, const char* s, const char* le) {
    while (s < le && is_blank(*s)) ++s;
    if (number != 0 || s == le || *s == '#' || *s == '%' || seen++ != index) return;
    const char* b[4];
    const char* e[4];
    number = n;
    if (split_tokens(s, le, b, e, 4) == 4) token = quoted(b[3], e[3]);
  }
};

/// "path:line: weight 'w': " of the update with `index`.
inline std::string update_weight_at(const UpdateStream& s, long long index) {
  UpdateLineFinder finder{index, 0, 0, {}};
  for_each_line(s.path, finder);
  return s.path + ":" + std::to_string(finder.number) + ": weight " + finder.token + ": ";
}

}  // namespace detail

/// A program with edge weights (`prop`, a propEdge parameter of DSL type `type` and element
/// type T) on a weighted graph needs every addition's weight, and an integer element type
/// takes only whole weights in its range, as from the graph file (assign_edge_weights): the
/// reference's messages, located at the first addition whose weight it cannot take.
template <class T>
inline void check_update_weights(const UpdateStream& s, const Graph& g, const char* function, const char* prop,
                                 const char* type) {
  bool adds = std::find(s.kinds.begin(), s.kinds.end(), 'a') != s.kinds.end();
  if (g.has_weights && adds && !s.has_weights)
    throw InputError(s.path + ": the additions carry no weights, and " + function +
                     " needs edge weights for '" + prop + "' (write 'a u v w')");
  if constexpr (std::is_integral<T>::value && !std::is_same<T, unsigned char>::value) {
    if (!s.has_weights) return;
    if (!s.weights_integral)   // the first addition with a fraction
      for (size_t i = 0; i < s.size(); ++i)
        if (s.kinds[i] == 'a' && std::floor(s.weights[i]) != s.weights[i])
          throw InputError(detail::update_weight_at(s, s.origin[i]) + function + " needs integer edge weights for '" +
                           prop + "' (" + type + ") but " + s.path + " has non-integer weights");
    for (size_t i = 0; i < s.size(); ++i)
      if (s.kinds[i] == 'a' && (s.weights[i] < static_cast<double>(std::numeric_limits<T>::lowest()) ||
                                s.weights[i] > static_cast<double>(std::numeric_limits<T>::max())))
        throw InputError(detail::update_weight_at(s, s.origin[i]) + function + ": a weight of " + s.path +
                         " does not fit " + type + " '" + prop + "'");
  }
}

}  // namespace starc
