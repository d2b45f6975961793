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
// Errors are InputError("path:line: what"), or "path: what" for whole-file problems. A text
// file is read line by line as it arrives (starc_graph_text.hpp), so reading stops at the
// first bad line; a line over 1 MiB, a vertex id at or past the limit (2^31-1, or
// --max-vertices) and a graph larger than the available memory ($STARC_MAX_MEMORY when set)
// are refused before anything is allocated for them -- the same rules as the Python reader
// (starc.inputs).
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

/// `count` bytes in the largest unit that keeps a whole number in front ("89.4 GiB",
/// "3.2 MiB", "1.0 KiB"), as starc.inputs words them.
inline std::string bytes_text(double count) {
  char text[32];
  if (count >= 1024.0 * 1024 * 1024) std::snprintf(text, sizeof text, "%.1f GiB", count / (1024.0 * 1024 * 1024));
  else if (count >= 1024.0 * 1024) std::snprintf(text, sizeof text, "%.1f MiB", count / (1024.0 * 1024));
  else std::snprintf(text, sizeof text, "%.1f KiB", count / 1024.0);
  return text;
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
    // more vertices than edges: most likely a few large ids, not a graph that big
    const char* sparse = num_nodes > num_edges ? " (the vertex count is the largest id + 1: are the ids dense?)" : "";
    input_error(path, line, std::to_string(num_nodes) + " vertices and " + std::to_string(num_edges) +
                                " edges need about " + detail::bytes_text(need) + " of memory but " +
                                detail::bytes_text(memory) + " is available" + sparse);
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
}  // namespace starc

// The text formats' parsers: after the limits and EdgeList they use, before read_graph.
#include "starc_graph_text.hpp"

namespace starc {

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
