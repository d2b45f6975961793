// starc MPI runtime: one bulk-synchronous superstep's exchanges (after one kernel).
//
// Part of the header-only runtime of starc-generated MPI programs, on top of starc_mpi.hpp
// (the distribution). A per-vertex array lives in the rank's local index space (owned
// vertices, ghosts, far vertices: starc_mpi.hpp), exact at the owned vertices and fresh at
// the ghosts where the program reads them; an array the program reads or writes at any vertex
// is a full-length replica indexed by global id instead (Scope::Anywhere). A kernel runs over
// the rank's own vertices and may write entries of ghosts (or, in a replica, of any vertex).
// The generated host registers, before the kernel, what the kernel's superstep exchanges (the
// facts of starc/analysis/distribution.py), then calls finish() after it:
//
//   update(a, op, scope)   entries of other ranks' vertices the kernel wrote go to their
//                          owners, combined at the sender (one entry per vertex: the array
//                          holds every local update already combined; accumulations start
//                          from the operator's identity) and applied there with `op`.
//   secondary(a, primary)  a Min/Max's secondary target: sent with its primary's entries and
//                          applied only where that entry won at the owner.
//   secondary(a, primary, c)  one the kernel only sets to the constant c: nothing travels,
//                          the owner stores c where the primary's entry won.
//   refresh(a, scope)      owners send the values of their vertices that changed in this
//                          superstep to the ranks that hold them as ghosts (or to all ranks).
//   refresh_every(a)       owners send every mirror's value, values only, in the order of the
//                          mirrors (the kernel writes every own vertex: nothing to detect).
//   keep_candidates(a)     a Min/Max target nothing reads at ghosts but the comparison: the
//                          ghost copies keep what this rank sent (a bound on the owner's
//                          value) instead of being refreshed; the owner's combine is all.
//   scalar(a, how)         a one-value array: combined across ranks by MPI_Allreduce.
//   errors(site, value)    the run-time error word: the rank with the first failed check wins.
//
// finish() makes at most two personalised exchanges (updates, then refreshes), each one
// neighbour collective of byte counts and one of data (starc_mpi_exchange.hpp) among the
// ranks that share ghosts (every rank when a replica takes part), whatever the number of
// arrays: one message per rank pair per phase. An entry names its vertex by its position in
// the list of ghosts the two ranks share (a replica's: by global id), as the difference to
// the previous entry's in a variable-length integer, so a vertex costs a byte or two besides
// its value. A section's header is one varint: 0 for none, the count (doubled) before the
// names, or, for a single entry, its name folded in (doubled, plus one): a BFS sends one or
// two vertices per array and superstep on a mesh, where a separate count cost a byte per
// entry. The first name of a section is the signed difference to the previous section's
// first name in the message (the arrays of one superstep change at nearby vertices), the
// others the difference to the entry before. A secondary's section is its values alone, one
// per entry of its primary's section. Change detection compares with a snapshot taken at registration, byte for byte
// (a NaN that stays NaN is unchanged). A refresh phase of refresh_every arrays alone has
// sizes both sides know (the mirrors' and the ghosts' counts): no byte counts travel.
#ifndef STARC_MPI_SUPERSTEP_HPP
#define STARC_MPI_SUPERSTEP_HPP

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <limits>
#include <type_traits>
#include <vector>

#include "starc_mpi.hpp"

namespace starc_mpi {

enum class Op { Store, Add, Sub, Mul, And, Or, Min, Max };
enum class Scope { Neighbour, Anywhere };
enum class Combine { Add, Sub, Mul, And, Or, Min, Max, Flag, Store };

template <class T> MPI_Datatype datatype();
template <> inline MPI_Datatype datatype<int>() { return MPI_INT; }
template <> inline MPI_Datatype datatype<long long>() { return MPI_LONG_LONG; }
template <> inline MPI_Datatype datatype<float>() { return MPI_FLOAT; }
template <> inline MPI_Datatype datatype<double>() { return MPI_DOUBLE; }
template <> inline MPI_Datatype datatype<unsigned char>() { return MPI_UNSIGNED_CHAR; }

namespace detail {

template <class T> T identity(Op op) {
  switch (op) {
    case Op::Mul: return T(1);
    case Op::And:
      if constexpr (std::is_integral<T>::value) return static_cast<T>(~T(0));
      return T(1);
    default: return T(0);
  }
}

template <class T> bool same(const T& a, const T& b) { return std::memcmp(&a, &b, sizeof(T)) == 0; }

/// Applies one received update `value` to `cell`; true when it changed the cell in a way that
/// wins (Min/Max: strictly better; the others always apply).
template <class T> bool apply(T& cell, T value, Op op) {
  if constexpr (std::is_integral<T>::value) {
    using U = typename std::make_unsigned<T>::type;   // wrap like the kernels (-fwrapv)
    switch (op) {
      case Op::Add: case Op::Sub: cell = static_cast<T>(static_cast<U>(cell) + static_cast<U>(value)); return true;
      case Op::Mul: cell = static_cast<T>(static_cast<U>(cell) * static_cast<U>(value)); return true;
      case Op::And: cell = static_cast<T>(cell & value); return true;
      case Op::Or: cell = static_cast<T>(cell | value); return true;
      default: break;
    }
  } else {
    switch (op) {
      case Op::Add: case Op::Sub: cell = cell + value; return true;
      case Op::Mul: cell = cell * value; return true;
      default: break;
    }
  }
  switch (op) {
    case Op::Min: if (value < cell) { cell = value; return true; } return false;
    case Op::Max: if (value > cell) { cell = value; return true; } return false;
    default: cell = value; return true;
  }
}

inline void put(std::vector<char>& out, const void* data, size_t bytes) {
  const char* p = static_cast<const char*>(data);
  out.insert(out.end(), p, p + bytes);
}

/// An unsigned integer in 7-bit groups, low first, the high bit saying another follows.
inline void put_varint(std::vector<char>& out, unsigned long long x) {
  while (x >= 0x80) {
    out.push_back(static_cast<char>((x & 0x7f) | 0x80));
    x >>= 7;
  }
  out.push_back(static_cast<char>(x));
}

inline unsigned long long get_varint(const char*& p) {
  unsigned long long x = 0;
  for (int shift = 0;; shift += 7) {
    unsigned char byte = static_cast<unsigned char>(*p++);
    x |= static_cast<unsigned long long>(byte & 0x7f) << shift;
    if (!(byte & 0x80)) return x;
  }
}

/// A signed difference as an unsigned one, small either way: 0, -1, 1, -2 ... -> 0, 1, 2, 3 ...
inline unsigned long long zigzag(long long x) {
  return (static_cast<unsigned long long>(x) << 1) ^ static_cast<unsigned long long>(x >> 63);
}

inline long long unzigzag(unsigned long long x) {
  return static_cast<long long>(x >> 1) ^ -static_cast<long long>(x & 1);
}

/// Reads a named section's header (see the file comment): returns its entry count and sets
/// `first` to its first entry's name; `base` is the previous section's first name, updated.
inline size_t get_section(const char*& p, int& base, int& first) {
  unsigned long long header = get_varint(p);
  if (header == 0) return 0;
  unsigned long long first_code = header & 1 ? header >> 1 : get_varint(p);
  first = base + static_cast<int>(unzigzag(first_code));
  base = first;
  return header & 1 ? 1 : static_cast<size_t>(header >> 1);
}

}  // namespace detail

class Superstep {
 public:
  explicit Superstep(Distribution& dist) : d_(dist) {}

  /// Remote updates of `a` with `op` at ghosts (Scope::Neighbour, a local array) or anywhere
  /// (a replica).
  template <class T> void update(T* a, Op op, Scope scope) {
    Field& f = field(a, scope);
    take_snapshot(f);
    f.op = op;
    f.updated = true;
    bool accumulates = op != Op::Store && op != Op::Min && op != Op::Max;
    if (accumulates) {
      T zero = detail::identity<T>(op);
      for_targets(f, [&](int v) { a[v] = zero; });
      f.is_identity = [a, zero](int v) { return detail::same(a[v], zero); };
    }
  }

  /// A secondary target of the Min/Max whose primary target is `primary`.
  template <class T, class P> void secondary(T* a, P* primary) {
    int index = index_of(primary);
    Field& f = field(a, fields_[static_cast<size_t>(index)].scope);
    take_snapshot(f);
    f.primary = index;
    f.updated = true;
  }

  /// A secondary target that the kernel only ever sets to `value`.
  template <class T, class P, class V> void secondary(T* a, P* primary, V value) {
    secondary(a, primary);
    Field& f = field(a, Scope::Neighbour);
    T constant = static_cast<T>(value);
    f.constant.assign(reinterpret_cast<const char*>(&constant), reinterpret_cast<const char*>(&constant) + sizeof(T));
  }

  /// Owners refresh other ranks' copies of `a` where it changed in this superstep.
  template <class T> void refresh(T* a, Scope scope) {
    Field& f = field(a, scope);
    take_snapshot(f);
    f.refreshed = true;
  }

  /// Owners refresh every ghost copy of local array `a`, values only in the mirrors' order.
  template <class T> void refresh_every(T* a) {
    Field& f = field(a, Scope::Neighbour);
    f.refreshed = true;
    f.every = true;
  }

  /// Ghost copies of `a` (a Min/Max target: update) keep the candidates this rank sent.
  template <class T> void keep_candidates(T* a) { field(a, Scope::Neighbour).keeps = true; }

  /// A one-value array combined across ranks when the superstep ends.
  template <class T> void scalar(T* a, Combine how) {
    T before = *a;
    if (d_.rank != 0 && (how == Combine::Add || how == Combine::Sub || how == Combine::Mul))
      *a = how == Combine::Mul ? T(1) : T(0);   // rank 0 alone keeps the value before
    scalars_.push_back([this, a, how, before] { combine(a, how, before); });
  }

  /// The run-time error word: every rank ends with the first failed check's site and value.
  void errors(int* site, long long* value) {
    scalars_.push_back([this, site, value] {
      struct { int site, rank; } mine{*site == 0 ? INT_MAX : *site, d_.rank}, first{};
      MPI_Allreduce(&mine, &first, 1, MPI_2INT, MPI_MINLOC, d_.comm);
      if (first.site == INT_MAX) return;
      MPI_Bcast(site, 1, MPI_INT, first.rank, d_.comm);
      MPI_Bcast(value, 1, MPI_LONG_LONG, first.rank, d_.comm);
    });
  }

  /// Exchanges everything registered (collective; every rank registered the same fields).
  void finish() {
    ++d_.stats.supersteps;
    long long bytes_before = d_.stats.bytes;
    std::vector<long long> sent(static_cast<size_t>(d_.ranks), 0);
    if (any([](const Field& f) { return f.updated; })) exchange_updates(sent);
    // Every copy of another rank's vertex that the kernel updated holds its value before the
    // kernel again; the owners' refreshes bring what really changed.
    for (Field& f : fields_)
      if (f.updated && !f.keeps) for_targets(f, [&](int v) { std::memcpy(f.cell(v), f.before(v), f.size); });
    if (any([](const Field& f) { return f.refreshed; })) exchange_refreshes(sent);
    for (long long count : sent)
      if (count > d_.stats.max_pair_messages_per_superstep) d_.stats.max_pair_messages_per_superstep = count;
    d_.stats.max_superstep_bytes = std::max(d_.stats.max_superstep_bytes, d_.stats.bytes - bytes_before);
    for (auto& combine : scalars_) combine();
  }

 private:
  struct Field {
    char* data = nullptr;
    size_t size = 0;                      // bytes per element
    Scope scope = Scope::Neighbour;       // Anywhere: a full-length replica, global ids
    std::vector<char> snapshot;           // the whole array before the kernel (take_snapshot)
    bool snapshot_taken = false;
    Op op = Op::Store;
    bool updated = false, refreshed = false;
    bool every = false;                   // refresh_every: every mirror, values only
    bool keeps = false;                   // keep_candidates: no restore of ghost copies
    std::vector<char> constant;           // a secondary's one value (nothing of it is sent)
    int primary = -1;                     // secondary: index of the primary field
    std::function<bool(int)> is_identity;
    std::function<bool(char*, const char*, Op)> apply;   // cell, value: whether it won

    char* cell(int v) const { return data + static_cast<size_t>(v) * size; }
    const char* before(int v) const { return snapshot.data() + static_cast<size_t>(v) * size; }
    bool changed(int v) const { return std::memcmp(cell(v), before(v), size) != 0; }
    bool sends(int v) const { return is_identity ? !is_identity(v) : changed(v); }
  };

  template <class T> Field& field(T* a, Scope scope) {
    for (Field& f : fields_)
      if (f.data == reinterpret_cast<char*>(a)) return f;
    fields_.emplace_back();
    Field& f = fields_.back();
    f.data = reinterpret_cast<char*>(a);
    f.size = sizeof(T);
    f.scope = scope;
    f.apply = [](char* cell, const char* value, Op op) {
      T c, v;
      std::memcpy(&c, cell, sizeof(T));
      std::memcpy(&v, value, sizeof(T));
      bool won = detail::apply(c, v, op);
      std::memcpy(cell, &c, sizeof(T));
      return won;
    };
    return f;
  }

  /// The field's values before the kernel, for change detection and restores (once).
  void take_snapshot(Field& f) const {
    if (f.snapshot_taken) return;
    size_t count = static_cast<size_t>(f.scope == Scope::Anywhere ? d_.graph.num_nodes : d_.local_nodes);
    f.snapshot.assign(f.data, f.data + count * f.size);
    f.snapshot_taken = true;
  }

  int index_of(const void* a) const {
    for (size_t i = 0; i < fields_.size(); ++i)
      if (fields_[i].data == a) return static_cast<int>(i);
    return -1;
  }

  template <class Pred> bool any(Pred pred) const {
    for (const Field& f : fields_)
      if (pred(f)) return true;
    return false;
  }

  /// Calls body(i) for every element of another rank's vertex a field's kernel may write: the
  /// ghosts of a local array, every vertex but the owned ones of a replica.
  template <class Body> void for_targets(const Field& f, Body body) const {
    if (f.scope == Scope::Neighbour) {
      for (int v : d_.ghost_local) body(v);
      return;
    }
    for (int v = 0; v < d_.first; ++v) body(v);
    for (int v = d_.last; v < d_.graph.num_nodes; ++v) body(v);
  }

  /// The neighbourhood a phase exchanges over: every rank when a replica takes part.
  template <class Pred> const detail::Neighbours& neighbours(Pred takes_part) const {
    return any([&](const Field& f) { return takes_part(f) && f.scope == Scope::Anywhere; }) ? d_.everyone : d_.peers;
  }

  /// Adds a section of entries (name: the position in the shared list, or the global id;
  /// element), with its header (see the file comment); `base` is the previous section's first
  /// name in the message, updated.
  static void put_section(std::vector<char>& buf, const Field& f, const std::vector<std::pair<int, int>>& entries,
                          int& base) {
    if (entries.empty()) {
      detail::put_varint(buf, 0);
      return;
    }
    unsigned long long first = detail::zigzag(static_cast<long long>(entries.front().first) - base);
    base = entries.front().first;
    if (entries.size() == 1) {
      detail::put_varint(buf, 2 * first + 1);
    } else {
      detail::put_varint(buf, 2 * static_cast<unsigned long long>(entries.size()));
      detail::put_varint(buf, first);
    }
    int previous = entries.front().first;
    for (const auto& entry : entries) {
      if (&entry != &entries.front()) detail::put_varint(buf, static_cast<unsigned long long>(entry.first - previous));
      previous = entry.first;
      detail::put(buf, f.cell(entry.second), f.size);
    }
  }

  /// A secondary's section: the values of its primary's entries, alone.
  static void put_values(std::vector<char>& buf, const Field& f, const std::vector<std::pair<int, int>>& entries) {
    for (const auto& entry : entries) detail::put(buf, f.cell(entry.second), f.size);
  }

  // Updates, per destination: for each updated field in registration order a section; a
  // secondary field's section holds values alone, those of its primary's entries.
  void exchange_updates(std::vector<long long>& sent) {
    const detail::Neighbours& n = neighbours([](const Field& f) { return f.updated; });
    std::vector<std::vector<char>> out(n.destinations.size());
    for (size_t k = 0; k < n.destinations.size(); ++k) {
      int r = n.destinations[k];
      if (r == d_.rank) continue;
      std::vector<char>& buf = out[k];
      long long entries = 0;
      int base = -1;
      std::vector<std::vector<std::pair<int, int>>> chosen(fields_.size());
      for (size_t i = 0; i < fields_.size(); ++i) {
        const Field& f = fields_[i];
        if (!f.updated) continue;
        std::vector<std::pair<int, int>>& mine = chosen[i];
        if (f.primary >= 0) {
          if (!f.constant.empty()) continue;
          mine = chosen[static_cast<size_t>(f.primary)];
        } else if (f.scope == Scope::Neighbour) {
          int base = d_.ghost_displs[static_cast<size_t>(r)];
          for (int g = base; g < d_.ghost_displs[static_cast<size_t>(r) + 1]; ++g) {
            int v = d_.ghost_local[static_cast<size_t>(g)];
            if (f.sends(v)) mine.push_back({g - base, v});
          }
        } else {
          for (int v = d_.splits[static_cast<size_t>(r)]; v < d_.splits[static_cast<size_t>(r) + 1]; ++v)
            if (f.sends(v)) mine.push_back({v, v});
        }
        if (f.primary >= 0) put_values(buf, f, mine);
        else put_section(buf, f, mine, base);
        entries += static_cast<long long>(mine.size());
      }
      close_buffer(buf, entries);
    }
    exchange(n, out, sent, nullptr, [&](int r, const char* p) {
      int base = -1;
      std::vector<std::vector<char>> won(fields_.size());
      std::vector<std::vector<int>> at(fields_.size());
      for (size_t i = 0; i < fields_.size(); ++i) {
        const Field& f = fields_[i];
        if (!f.updated) continue;
        if (f.primary >= 0 && !f.constant.empty()) {
          const std::vector<int>& where = at[static_cast<size_t>(f.primary)];
          const std::vector<char>& wins = won[static_cast<size_t>(f.primary)];
          for (size_t e = 0; e < where.size(); ++e)
            if (wins[e]) std::memcpy(f.cell(where[e]), f.constant.data(), f.size);
          continue;
        }
        if (f.primary >= 0) {  // applied only where the primary's entry won
          const std::vector<int>& where = at[static_cast<size_t>(f.primary)];
          const std::vector<char>& wins = won[static_cast<size_t>(f.primary)];
          for (size_t e = 0; e < where.size(); ++e, p += f.size)
            if (wins[e]) std::memcpy(f.cell(where[e]), p, f.size);
          continue;
        }
        int name = -1;
        size_t count = detail::get_section(p, base, name);
        for (size_t e = 0; e < count; ++e, p += f.size) {
          long long step = e == 0 ? 1 : static_cast<long long>(detail::get_varint(p));
          name += e == 0 ? 0 : static_cast<int>(step);
          long long per_vertex = step > 0 ? 1 : 2;   // 2: a vertex twice (not combined)
          if (per_vertex > d_.stats.max_entries_per_vertex) d_.stats.max_entries_per_vertex = per_vertex;
          int v = f.scope == Scope::Neighbour ? d_.mirrors[static_cast<size_t>(d_.mirror_displs[static_cast<size_t>(r)] + name)]
                                              : name;
          at[i].push_back(v);
          won[i].push_back(f.apply(f.cell(v), p, f.op) ? 1 : 0);
        }
      }
    });
  }

  // Refreshes, per destination: for each refreshed field a section of the owner's changed
  // values (a local array: its mirrors the destination holds as ghosts; a replica: every
  // changed own vertex, to every rank).
  void exchange_refreshes(std::vector<long long>& sent) {
    const detail::Neighbours& n = neighbours([](const Field& f) { return f.refreshed; });
    std::vector<std::vector<std::pair<int, int>>> changed(fields_.size());   // replicas
    for (size_t i = 0; i < fields_.size(); ++i)
      if (fields_[i].refreshed && fields_[i].scope == Scope::Anywhere)
        for (int v = d_.first; v < d_.last; ++v)
          if (fields_[i].changed(v)) changed[i].push_back({v, v});
    std::vector<std::vector<char>> out(n.destinations.size());
    for (size_t k = 0; k < n.destinations.size(); ++k) {
      int r = n.destinations[k];
      if (r == d_.rank) continue;
      std::vector<char>& buf = out[k];
      long long entries = 0;
      int base = -1;
      for (size_t i = 0; i < fields_.size(); ++i) {
        const Field& f = fields_[i];
        if (!f.refreshed) continue;
        if (f.every) {   // no count, no names: the receiver's ghosts from this rank, in order
          for (int m = d_.mirror_displs[static_cast<size_t>(r)]; m < d_.mirror_displs[static_cast<size_t>(r) + 1]; ++m)
            detail::put(buf, f.cell(d_.mirrors[static_cast<size_t>(m)]), f.size);
          entries += d_.mirror_displs[static_cast<size_t>(r) + 1] - d_.mirror_displs[static_cast<size_t>(r)];
          continue;
        }
        std::vector<std::pair<int, int>> mine;
        if (f.scope == Scope::Neighbour) {
          int base = d_.mirror_displs[static_cast<size_t>(r)];
          for (int m = base; m < d_.mirror_displs[static_cast<size_t>(r) + 1]; ++m) {
            int v = d_.mirrors[static_cast<size_t>(m)];
            if (f.changed(v)) mine.push_back({m - base, v});
          }
        }
        const std::vector<std::pair<int, int>>& entries_of = f.scope == Scope::Neighbour ? mine : changed[i];
        put_section(buf, f, entries_of, base);
        entries += static_cast<long long>(entries_of.size());
      }
      close_buffer(buf, entries);
    }
    // sizes both sides know when every refreshed array sends every mirror: the ghosts' values
    bool known = !any([](const Field& f) { return f.refreshed && !f.every; });
    std::vector<long long> expected;
    if (known) {
      size_t values = 0;
      for (const Field& f : fields_)
        if (f.refreshed) values += f.size;
      for (int r : n.sources)
        expected.push_back(static_cast<long long>(values) *
                           (d_.ghost_displs[static_cast<size_t>(r) + 1] - d_.ghost_displs[static_cast<size_t>(r)]));
    }
    exchange(n, out, sent, known ? &expected : nullptr, [&](int r, const char* p) {
      int base = -1;
      for (const Field& f : fields_) {
        if (!f.refreshed) continue;
        if (f.every) {
          for (int g = d_.ghost_displs[static_cast<size_t>(r)]; g < d_.ghost_displs[static_cast<size_t>(r) + 1]; ++g, p += f.size)
            std::memcpy(f.cell(d_.ghost_local[static_cast<size_t>(g)]), p, f.size);
          continue;
        }
        int name = -1;
        size_t count = detail::get_section(p, base, name);
        for (size_t e = 0; e < count; ++e, p += f.size) {
          if (e > 0) name += static_cast<int>(detail::get_varint(p));
          int v = f.scope == Scope::Neighbour ? d_.ghost_local[static_cast<size_t>(d_.ghost_displs[static_cast<size_t>(r)] + name)]
                                              : name;
          std::memcpy(f.cell(v), p, f.size);
        }
      }
    });
  }

  /// Ends the buffer to one rank: one with counts alone (no entries) is not sent.
  void close_buffer(std::vector<char>& buf, long long entries) {
    if (entries == 0) buf.clear();
    d_.stats.entries += entries;
  }

  /// One personalised exchange over `n`: byte counts (unless `known` gives what each source
  /// sends), then the data; then read(r, p) for each message that came, p at its first byte,
  /// r the rank that sent it. An empty buffer to a rank is not a message (close_buffer).
  template <class Read>
  void exchange(const detail::Neighbours& n, std::vector<std::vector<char>>& out,
                std::vector<long long>& sent, const std::vector<long long>* known, Read read) {
    std::vector<long long> send_bytes(out.size()), send_displs(out.size() + 1, 0);
    for (size_t k = 0; k < out.size(); ++k) {
      send_bytes[k] = static_cast<long long>(out[k].size());
      send_displs[k + 1] = send_displs[k] + send_bytes[k];
      if (!out[k].empty()) {
        ++d_.stats.messages;
        ++sent[static_cast<size_t>(n.destinations[k])];
        d_.stats.bytes += send_bytes[k];
      }
    }
    std::vector<char> data(static_cast<size_t>(send_displs.back()));
    for (size_t k = 0; k < out.size(); ++k)
      if (!out[k].empty()) std::memcpy(data.data() + send_displs[k], out[k].data(), out[k].size());
    ++d_.stats.exchanges;
    std::vector<long long> recv_bytes = known ? *known : detail::exchange_counts(n, send_bytes);
    std::vector<long long> displs = detail::prefix(recv_bytes);
    std::vector<char> in(static_cast<size_t>(displs.back()));
    detail::exchange_data(n, data.data(), send_bytes, send_displs, in.data(), recv_bytes, displs);
    for (size_t k = 0; k < n.sources.size(); ++k)
      if (displs[k + 1] > displs[k]) read(n.sources[k], in.data() + displs[k]);
  }

  template <class T> void combine(T* a, Combine how, T before) {
    MPI_Op op = MPI_MAX;
    switch (how) {
      case Combine::Add: case Combine::Sub: op = MPI_SUM; break;
      case Combine::Mul: op = MPI_PROD; break;
      case Combine::And: op = MPI_BAND; break;
      case Combine::Or: op = MPI_BOR; break;
      case Combine::Min: op = MPI_MIN; break;
      case Combine::Max: case Combine::Flag: op = MPI_MAX; break;
      case Combine::Store: {   // the value of the last rank that stored one
        int mine = detail::same(*a, before) ? -1 : d_.rank, last = -1;
        MPI_Allreduce(&mine, &last, 1, MPI_INT, MPI_MAX, d_.comm);
        if (last >= 0) MPI_Bcast(a, static_cast<int>(sizeof(T)), MPI_BYTE, last, d_.comm);
        return;
      }
    }
    if constexpr (std::is_floating_point<T>::value) {
      if (how == Combine::And || how == Combine::Or) return;   // not an operator on floats
    }
    MPI_Allreduce(MPI_IN_PLACE, a, 1, datatype<T>(), op, d_.comm);
  }

  Distribution& d_;
  std::deque<Field> fields_;               // stable addresses
  std::vector<std::function<void()>> scalars_;
};

}  // namespace starc_mpi

#endif  // STARC_MPI_SUPERSTEP_HPP
