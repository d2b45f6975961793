// starc runtime: reading the .sg binary graph (`starc graph convert g.el g.sg`, `--cache`).
//
// The layout and the checks are those of the Python reader, starc/graphs/binary.py: a 64-byte
// little-endian header (magic "STARC-SG", version 1, flags 1 weighted / 2 integer weights /
// 4 undirected applied, n, m, the Adler-32 of the payload, the source stamp the Python cache
// uses), then offsets[n+1], targets[m], rev_offsets[n+1], rev_sources[m], rev_edge_ids[m]
// (int32), zero padding to 8 bytes and weights[m] (float64) when weighted. The arrays are read
// straight into the Graph's vectors; every problem is an InputError "path: what", and no file,
// however damaged, gives a graph with an index out of range. The header is checked first, its
// sizes against the file's length too, so damaged header bytes are never taken for a huge
// graph: "damaged .sg file: what; write it again with `starc graph convert SOURCE path`".
#ifndef STARC_GRAPH_BINARY_HPP
#define STARC_GRAPH_BINARY_HPP

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <sys/stat.h>  // fstat: the file's size against its header's

#include "starc_graph.hpp"

namespace starc {
namespace detail {

/// Adler-32 (RFC 1950), continued from `sum` (1 for a fresh sum), as Python's zlib.adler32.
inline uint32_t adler32(uint32_t sum, const unsigned char* data, size_t size) {
  const uint32_t kBase = 65521;
  const size_t kMaxRun = 5552;  // the longest run whose sums cannot overflow 32 bits
  uint32_t a = sum & 0xffff, b = sum >> 16;
  while (size > 0) {
    size_t run = size < kMaxRun ? size : kMaxRun;
    size -= run;
    for (size_t i = 0; i < run; ++i) {
      a += data[i];
      b += a;
    }
    data += run;
    a %= kBase;
    b %= kBase;
  }
  return (b << 16) | a;
}

inline uint32_t load_u32(const unsigned char* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

inline uint64_t load_u64(const unsigned char* p) { return uint64_t(load_u32(p)) | uint64_t(load_u32(p + 4)) << 32; }

/// A .sg file that is not what starc writes: said so, with how to write it again.
[[noreturn]] inline void sg_damaged(const std::string& path, const std::string& what) {
  input_error(path, 0, "damaged .sg file: " + what + "; write it again with `starc graph convert SOURCE " + path + "`");
}

/// Reads `count` elements into `out`, adding the bytes to the running checksum.
template <class T>
inline void read_section(std::FILE* f, const std::string& path, std::vector<T>& out, size_t count,
                         uint32_t& sum, long long expected_size) {
  out.resize(count);
  size_t got = count ? std::fread(out.data(), sizeof(T), count, f) : 0;
  if (got != count) {
    if (std::ferror(f)) input_error(path, 0, std::string("cannot read: ") + std::strerror(errno));
    sg_damaged(path, "fewer bytes than the " + std::to_string(expected_size) + " its header's sizes take");  // a pipe
  }
  sum = adler32(sum, reinterpret_cast<const unsigned char*>(out.data()), count * sizeof(T));
}

/// Offsets start at 0, end at m and never decrease; ids lie in [0, top).
inline void check_offsets(const std::string& path, const std::vector<int>& offsets, int m, const char* name) {
  bool ok = offsets.front() == 0 && offsets.back() == m;
  for (size_t v = 1; ok && v < offsets.size(); ++v) ok = offsets[v - 1] <= offsets[v];
  if (!ok) input_error(path, 0, std::string(name) + " are not a valid CSR offset array");
}

inline void check_ids(const std::string& path, const std::vector<int>& ids, int top, const char* name) {
  unsigned bad = 0;
  for (int id : ids) bad |= static_cast<unsigned>(id) >= static_cast<unsigned>(top);
  if (bad) input_error(path, 0, std::string(name) + ": ids out of range 0.." + std::to_string(top - 1));
}

/// What a .sg header says, once checked: sizes, flags, where each section lies.
struct SgHeader {
  size_t n = 0, m = 0, padding = 0;
  uint32_t flags = 0, checksum = 0;
  long long size = 0;  // of the whole file
  bool weighted() const { return flags & 1; }
  bool integral() const { return flags & 2; }
  bool undirected_applied() const { return flags & 4; }
  long long targets_at() const { return 64 + 4 * static_cast<long long>(n + 1); }
  long long weights_at() const { return size - 8 * static_cast<long long>(m); }
};

/// Reads and checks the header of the .sg file `f` (its size too, when it is a regular file);
/// `undirected`: the graph will get mirrors, which the size check counts.
inline SgHeader read_sg_header(std::FILE* f, const std::string& path, bool undirected) {
  const uint32_t one = 1;
  unsigned char probe;
  std::memcpy(&probe, &one, 1);
  if (probe != 1) input_error(path, 0, "reading .sg files needs a little-endian machine");
  unsigned char header[64];
  size_t got = std::fread(header, 1, sizeof header, f);
  if (got < sizeof header) sg_damaged(path, std::to_string(got) + " bytes, shorter than the 64-byte header");
  if (std::memcmp(header, "STARC-SG", 8) != 0) sg_damaged(path, "no STARC-SG magic at its start (is it a .sg file?)");
  SgHeader h;
  uint32_t version = load_u32(header + 8);
  h.flags = load_u32(header + 12);
  if (version != 1) sg_damaged(path, "version " + std::to_string(version) + " in its header (this reader reads version 1)");
  if (h.flags & ~7u) {
    char text[64];
    std::snprintf(text, sizeof text, "unknown flags %#x in its header", h.flags);
    sg_damaged(path, text);
  }
  uint32_t reserved = load_u32(header + 36);
  if (reserved != 0) {
    char text[64];
    std::snprintf(text, sizeof text, "reserved header field %#x, not 0", reserved);
    sg_damaged(path, text);
  }
  uint64_t n64 = load_u64(header + 16), m64 = load_u64(header + 24);
  std::string sizes = std::to_string(n64) + " vertices and " + std::to_string(m64) + " edges";
  if (n64 > uint64_t(INT_MAX) || m64 > uint64_t(INT_MAX) - 1)
    sg_damaged(path, "its header says " + sizes + ", more than 32-bit ids allow");
  h.n = static_cast<size_t>(n64);
  h.m = static_cast<size_t>(m64);
  h.checksum = load_u32(header + 32);
  size_t ints = 4 * (2 * (h.n + 1) + 3 * h.m);
  h.padding = h.weighted() ? ((ints + 7) & ~size_t(7)) - ints : 0;
  h.size = static_cast<long long>(64 + ints + h.padding + (h.weighted() ? 8 * h.m : 0));
  struct stat info;
  if (fstat(fileno(f), &info) == 0 && S_ISREG(info.st_mode) && info.st_size != h.size)
    sg_damaged(path, std::to_string(info.st_size) + " bytes, but its header says " + sizes + ", which take " +
                         std::to_string(h.size));
  bool add_mirrors = undirected && !h.undirected_applied();  // after the length: a short file allocates nothing
  check_graph_size(path, 0, static_cast<long long>(n64), static_cast<long long>(add_mirrors ? 2 * m64 : m64));
  return h;
}

/// Checks the payload's Adler-32 reading it in blocks, so no whole graph is held (MPI's rank 0).
inline void check_sg_checksum(std::FILE* f, const std::string& path, const SgHeader& h) {
  if (fseeko(f, 64, SEEK_SET) != 0) input_error(path, 0, std::string("cannot read: ") + std::strerror(errno));
  std::vector<unsigned char> block(size_t(1) << 20);
  uint32_t sum = 1;
  size_t got;
  while ((got = std::fread(block.data(), 1, block.size(), f)) > 0) sum = adler32(sum, block.data(), got);
  if (sum != h.checksum) sg_damaged(path, "checksum mismatch");
}

inline Graph read_binary_graph(const std::string& path, bool undirected) {
  InputFile file(path);
  std::FILE* f = file.f;
  SgHeader h = read_sg_header(f, path, undirected);
  size_t n = h.n, m = h.m;
  bool weighted = h.weighted(), add_mirrors = undirected && !h.undirected_applied();
  long long expected = h.size;

  Graph g;
  g.path = path;
  g.num_nodes = static_cast<int>(n);
  g.num_edges = static_cast<int>(m);
  g.has_weights = weighted;
  g.weights_integral = !weighted || h.integral();
  uint32_t sum = 1;
  read_section(f, path, g.offsets, n + 1, sum, expected);
  read_section(f, path, g.targets, m, sum, expected);
  read_section(f, path, g.rev_offsets, n + 1, sum, expected);
  read_section(f, path, g.rev_sources, m, sum, expected);
  read_section(f, path, g.rev_edge_ids, m, sum, expected);
  if (weighted) {
    std::vector<unsigned char> pad;
    read_section(f, path, pad, h.padding, sum, expected);
    read_section(f, path, g.weights, m, sum, expected);
  }
  if (std::fgetc(f) != EOF) sg_damaged(path, "more bytes than the " + std::to_string(expected) + " its header's sizes take");  // a pipe
  if (sum != h.checksum) sg_damaged(path, "checksum mismatch");
  check_offsets(path, g.offsets, g.num_edges, "offsets");
  check_offsets(path, g.rev_offsets, g.num_edges, "rev_offsets");
  check_ids(path, g.targets, g.num_nodes, "targets");
  check_ids(path, g.rev_sources, g.num_nodes, "rev_sources");
  check_ids(path, g.rev_edge_ids, g.num_edges, "rev_edge_ids");
  for (double w : g.weights)
    if (!std::isfinite(w)) input_error(path, 0, "weights: a weight is not finite");
  g.sources.resize(m);
  for (size_t v = 0; v < n; ++v)
    for (int e = g.offsets[v]; e < g.offsets[v + 1]; ++e) g.sources[static_cast<size_t>(e)] = static_cast<int>(v);
  if (!add_mirrors) return g;
  // The edges in CSR order, then their mirrors: the same graph as the text reader's
  // symmetrised one (duplicates of one pair keep file order in the CSR).
  EdgeList edges;
  edges.num_nodes = g.num_nodes;
  edges.src = std::move(g.sources);
  edges.dst = std::move(g.targets);
  edges.weights = std::move(g.weights);
  edges.has_weights = g.has_weights;
  edges.weights_integral = g.weights_integral;
  g = Graph();
  symmetrise(edges);
  g = build_csr(std::move(edges), path);
  g.mirrored = true;
  return g;
}

}  // namespace detail
}  // namespace starc

#endif  // STARC_GRAPH_BINARY_HPP
