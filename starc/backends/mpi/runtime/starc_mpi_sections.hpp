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

/// A secondary target the kernel only sets to a constant (Superstep::secondary(a, primary,
/// c)): nothing of it travels; the owner stores `value` where its primary's entry wins.
struct ConstantTarget {
  char* data;
  size_t size;
  const char* value;
};

/// What a winning entry of an update section sets besides its own cell: the constant
/// secondaries of its field, and, where a secondary carries values, `at` records each entry's
/// vertex where it won, else -1 (that secondary's section: one value per entry, in order).
struct Winners {
  const ConstantTarget* constants = nullptr;
  size_t count = 0;
  std::vector<int>* at = nullptr;
  // a claim's worklist: each vertex where an entry won is appended (queue[(*length)++])
  int* queue = nullptr;
  int* length = nullptr;
};

/// Applies an update section's `count` entries at p (after its header; the first named
/// `name`, the others by their steps) with O, each at vertex names[name] (a replica's: name
/// itself, names null), and what a winner sets (Winners); `repeated` is set where a step is 0
/// (a vertex twice). Returns the byte after the section. Typed, the operator fixed: the
/// owner's combine went through a call per entry and two lists of every entry, most of a
/// superstep's runtime work in sssp and cc at 16 ranks (perf, R-MAT 18).
template <class T, Op O>
const char* apply_entries(char* data, const char* p, size_t count, int name, const int* names, const Winners& w,
                          bool& repeated) {
  T* cells = reinterpret_cast<T*>(data);
  for (size_t e = 0; e < count; ++e) {
    if (e > 0) {
      unsigned long long step = get_varint(p);
      repeated |= step == 0;
      name += static_cast<int>(step);
    }
    const int v = names != nullptr ? names[name] : name;
    T value;
    std::memcpy(&value, p, sizeof(T));
    p += sizeof(T);
    const bool won = apply(cells[v], value, O);
    if (won) {
      for (size_t k = 0; k < w.count; ++k)
        copy_value(w.constants[k].data + static_cast<size_t>(v) * w.constants[k].size, w.constants[k].value, w.constants[k].size);
      if (w.queue != nullptr) w.queue[(*w.length)++] = v;
    }
    if (w.at != nullptr) w.at->push_back(won ? v : -1);
  }
  return p;
}

/// apply_entries with the operator `op` (one dispatch a section).
template <class T>
const char* apply_section(char* data, const char* p, size_t count, int name, const int* names, Op op, const Winners& w,
                          bool& repeated) {
  switch (op) {
    case Op::Store: return apply_entries<T, Op::Store>(data, p, count, name, names, w, repeated);
    case Op::Add: return apply_entries<T, Op::Add>(data, p, count, name, names, w, repeated);
    case Op::Sub: return apply_entries<T, Op::Sub>(data, p, count, name, names, w, repeated);
    case Op::Mul: return apply_entries<T, Op::Mul>(data, p, count, name, names, w, repeated);
    case Op::And: return apply_entries<T, Op::And>(data, p, count, name, names, w, repeated);
    case Op::Or: return apply_entries<T, Op::Or>(data, p, count, name, names, w, repeated);
    case Op::Min: return apply_entries<T, Op::Min>(data, p, count, name, names, w, repeated);
    case Op::Max: return apply_entries<T, Op::Max>(data, p, count, name, names, w, repeated);
  }
  return p;
}

/// One section's entries to one rank: a run of a field's changed ghosts (positions in the
/// ghost list; names counted from `first`, the rank's first position), as exchange_updates
/// finds them, or listed (name, vertex) pairs. A run is encoded as it stands: listing its
/// pairs first, in fresh vectors per rank, cost as much as encoding them.
struct Entries {
  const int* ghosts = nullptr;
  const int* ghost_local = nullptr;
  int first = 0;
  size_t run = 0;                                // a run's length (0: `listed`)
  std::vector<std::pair<int, int>> listed;

  size_t size() const { return ghosts != nullptr ? run : listed.size(); }
  int name(size_t e) const { return ghosts != nullptr ? ghosts[e] - first : listed[e].first; }
  int vertex(size_t e) const { return ghosts != nullptr ? ghost_local[ghosts[e]] : listed[e].second; }
  void clear() {
    ghosts = nullptr;
    run = 0;
    listed.clear();
  }
};

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
  int* queue = nullptr;                 // a claim's worklist and its length (Superstep::queue)
  int* queue_length = nullptr;
  std::function<bool(int)> is_identity;
  // applies a received update section (apply_section), typed
  const char* (*apply_section)(char*, const char*, size_t, int, const int*, Op, const Winners&, bool&) = nullptr;

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

/// Adds a section of `count` entries, the e-th named name(e) (the position in the shared
/// list, or the global id; ascending) with the value at vertex(e), with its header
/// (starc_mpi_superstep.hpp's file comment); `base` is the previous section's first name in
/// the message, updated. Written through a pointer into room made once: a push per byte and
/// an insert per value were a tenth of bfs's superstep work on Kronecker 18.
template <class Name, class Vertex>
void put_entries(std::vector<char>& buf, const SuperstepField& f, size_t count, Name name, Vertex vertex, int& base) {
  if (count == 0) {
    put_varint(buf, 0);
    return;
  }
  size_t at = buf.size();
  buf.resize(at + 2 * kMaxVarint + count * (kMaxIntVarint + f.size));
  char* p = put_header(buf.data() + at, count, name(0), base);
  int previous = name(0);
  for (size_t e = 0; e < count; ++e) {
    const int here = name(e);
    if (e > 0)   // as 32 bits: at most kMaxIntVarint bytes (names ascend)
      p = put_varint(p, static_cast<unsigned>(here - previous));
    previous = here;
    copy_value(p, f.cell(vertex(e)), f.size);
    p += f.size;
  }
  buf.resize(static_cast<size_t>(p - buf.data()));
}

/// A section of listed (name, vertex) entries (put_entries).
inline void put_section(std::vector<char>& buf, const SuperstepField& f, const std::vector<std::pair<int, int>>& entries,
                        int& base) {
  put_entries(buf, f, entries.size(), [&](size_t e) { return entries[e].first; },
              [&](size_t e) { return entries[e].second; }, base);
}

/// A section of `entries` (put_entries).
inline void put_section(std::vector<char>& buf, const SuperstepField& f, const Entries& entries, int& base) {
  if (entries.ghosts == nullptr) return put_section(buf, f, entries.listed, base);
  put_entries(buf, f, entries.run, [&](size_t e) { return entries.ghosts[e] - entries.first; },
              [&](size_t e) { return entries.ghost_local[entries.ghosts[e]]; }, base);
}

/// A secondary's section: the values of its primary's entries, alone.
inline void put_values(std::vector<char>& buf, const SuperstepField& f, const Entries& entries) {
  size_t at = buf.size(), count = entries.size();
  buf.resize(at + count * f.size);
  for (size_t e = 0; e < count; ++e) {
    copy_value(buf.data() + at, f.cell(entries.vertex(e)), f.size);
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
