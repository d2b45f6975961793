// starc MPI runtime: a superstep's registered arrays and the sections of its messages.
//
// Part of the header-only runtime of starc-generated MPI programs (starc_mpi_superstep.hpp
// uses it): SuperstepField is an array a superstep exchanges, with its element size, its
// type's operations behind plain function pointers and what the superstep kept of it before
// the kernel; the put_* functions write its sections of a message in the encoding described
// at the top of starc_mpi_superstep.hpp (named entries as varints, or a refresh's bitmap
// over the ghost list two ranks share).
#ifndef STARC_MPI_SECTIONS_HPP
#define STARC_MPI_SECTIONS_HPP

#include <algorithm>
#include <cstring>
#include <functional>
#include <utility>
#include <vector>

#include "starc_mpi.hpp"
#include "starc_mpi_values.hpp"

namespace starc_mpi {
namespace detail {

struct SuperstepField {
  char* data = nullptr;
  size_t size = 0;                      // bytes per element
  Scope scope = Scope::Neighbour;       // Anywhere: a full-length replica, global ids
  std::vector<char> snapshot;           // a replica: the whole array before the kernel (take_snapshot)
  bool snapshot_taken = false;
  // A local array's values before the kernel where the superstep compares or restores them:
  // at the ghosts (in ghost order) when updated, at the distinct mirrors when refreshed.
  std::vector<char> ghosts_before, mirrors_before;
  bool ghosts_watched = false, mirrors_watched = false;
  std::vector<int> ghost_changes, mirror_changes;   // the positions that changed (after the kernel)
  void (*gather)(const char*, const int*, size_t, char*) = nullptr;
  void (*scatter)(char*, const int*, size_t, const char*) = nullptr;
  void (*compare)(const char*, const int*, size_t, const char*, std::vector<int>&) = nullptr;
  // the same over the ghosts, given as runs (Distribution::ghost_runs)
  void (*gather_ghosts)(const char*, const std::vector<IdRun>&, char*) = nullptr;
  void (*scatter_ghosts)(char*, const std::vector<IdRun>&, const char*) = nullptr;
  void (*compare_ghosts)(const char*, const std::vector<IdRun>&, const char*, std::vector<int>&) = nullptr;
  Op op = Op::Store;
  bool updated = false, refreshed = false;
  bool every = false;                   // refresh_every: every mirror, values only
  bool keeps = false;                   // keep_candidates: no restore of ghost copies
  std::vector<char> constant;           // a secondary's one value (nothing of it is sent)
  int primary = -1;                     // secondary: index of the primary field
  std::function<bool(int)> is_identity;
  bool (*apply)(char*, const char*, Op) = nullptr;     // cell, value: whether it won (a plain
                                                       // pointer: it runs per received entry)

  char* cell(int v) const { return data + static_cast<size_t>(v) * size; }
  const char* before(int v) const { return snapshot.data() + static_cast<size_t>(v) * size; }
  bool changed(int v) const { return std::memcmp(cell(v), before(v), size) != 0; }
  /// Appends {v, v} for each v in [lo, hi) whose value changed, comparing a block of
  /// values with one memcmp and only a changed block value by value: a replica's whole
  /// range, compared by one memcmp call per value, was most of a superstep's own work in a
  /// dynamic program's batch (perf, Kronecker 18), where a superstep changes few values.
  void changes(int lo, int hi, std::vector<std::pair<int, int>>& out) const {
    constexpr int kBlock = 64;
    for (int b = lo; b < hi; b += kBlock) {
      const int e = std::min(hi, b + kBlock);
      if (std::memcmp(cell(b), before(b), static_cast<size_t>(e - b) * size) == 0) continue;
      for (int v = b; v < e; ++v)
        if (changed(v)) out.push_back({v, v});
    }
  }
};

/// Writes at `p` the header of a named section of `count` (> 0) entries whose first is named
/// `first` (see starc_mpi_superstep.hpp's file comment), with the first name; `base` is
/// updated. Returns the end.
inline char* put_header(char* p, size_t count, int first, int& base) {
  unsigned long long code = zigzag(static_cast<long long>(first) - base);
  base = first;
  if (count == 1) return put_varint(p, 2 * code + 1);
  p = put_varint(p, 2 * static_cast<unsigned long long>(count));
  return put_varint(p, code);
}

/// Adds a section of entries (name: the position in the shared list, or the global id;
/// element), with its header (starc_mpi_superstep.hpp's file comment); `base` is the previous
/// section's first name in the message, updated. Written through a pointer into room made
/// once: a push per byte and an insert per value were a tenth of bfs's superstep work on
/// Kronecker 18.
inline void put_section(std::vector<char>& buf, const SuperstepField& f, const std::vector<std::pair<int, int>>& entries,
                        int& base) {
  if (entries.empty()) {
    put_varint(buf, 0);
    return;
  }
  size_t at = buf.size();
  buf.resize(at + 2 * kMaxVarint + entries.size() * (kMaxIntVarint + f.size));
  char* p = put_header(buf.data() + at, entries.size(), entries.front().first, base);
  int previous = entries.front().first;
  for (const auto& entry : entries) {
    if (&entry != &entries.front())   // as 32 bits: at most kMaxIntVarint bytes (names ascend)
      p = put_varint(p, static_cast<unsigned>(entry.first - previous));
    previous = entry.first;
    copy_value(p, f.cell(entry.second), f.size);
    p += f.size;
  }
  buf.resize(static_cast<size_t>(p - buf.data()));
}

/// A secondary's section: the values of its primary's entries, alone.
inline void put_values(std::vector<char>& buf, const SuperstepField& f, const std::vector<std::pair<int, int>>& entries) {
  size_t at = buf.size();
  buf.resize(at + entries.size() * f.size);
  for (const auto& entry : entries) {
    copy_value(buf.data() + at, f.cell(entry.second), f.size);
    at += f.size;
  }
}

/// How many of this rank's vertices rank r holds as ghosts (the list a refresh names by).
inline size_t mirrors_to(const Distribution& d, size_t r) {
  return static_cast<size_t>(d.mirror_displs[r + 1] - d.mirror_displs[r]);
}

/// Whether `count` changed mirrors go to rank r as a bitmap section: where its bytes (one a
/// vertex of the list, over 8) are at most the names' (a byte at least each).
inline bool bitmap(const Distribution& d, size_t r, size_t count) { return (mirrors_to(d, r) + 7) / 8 <= count; }

/// Adds a bitmap section to rank r (see Superstep::exchange_refreshes): its header byte, `map`
/// (the bits of r's list, bitmap_word's order), then the values of the `count` set bits in
/// order.
inline void put_bitmap_section(const Distribution& d, std::vector<char>& buf, const SuperstepField& f, const unsigned char* map, size_t r,
                               size_t count) {
  const size_t names = mirrors_to(d, r), bytes = (names + 7) / 8;
  size_t at = buf.size();
  buf.resize(at + 1 + bytes + count * f.size);
  char* p = buf.data() + at;
  *p++ = static_cast<char>(kBitmapSection);
  std::memcpy(p, map, bytes);
  p += bytes;
  const int* mirrors = d.mirrors.data() + d.mirror_displs[r];
  for_bits(map, names, [&](int name) {
    copy_value(p, f.cell(mirrors[name]), f.size);
    p += f.size;
  });
}

/// Adds the section put_section would for the `count` changed mirrors whose bits `map`
/// sets over rank r's list (names ascending), without listing them first.
inline void put_named_section(const Distribution& d, std::vector<char>& buf, const SuperstepField& f, const unsigned char* map,
                              size_t r, size_t count, int& base) {
  if (count == 0) {
    put_varint(buf, 0);
    return;
  }
  size_t at = buf.size();
  buf.resize(at + 2 * kMaxVarint + count * (kMaxIntVarint + f.size));
  char* p = buf.data() + at;
  const int* mirrors = d.mirrors.data() + d.mirror_displs[r];
  int previous = -1;
  for_bits(map, mirrors_to(d, r), [&](int name) {
    p = previous < 0 ? put_header(p, count, name, base) : put_varint(p, static_cast<unsigned>(name - previous));
    previous = name;
    copy_value(p, f.cell(mirrors[name]), f.size);
    p += f.size;
  });
  buf.resize(static_cast<size_t>(p - buf.data()));
}

}  // namespace detail
}  // namespace starc_mpi

#endif  // STARC_MPI_SECTIONS_HPP
