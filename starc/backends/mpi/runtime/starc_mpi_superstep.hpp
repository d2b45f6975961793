// starc MPI runtime: one bulk-synchronous superstep's exchanges (after one kernel).
//
// Part of the header-only runtime of starc-generated MPI programs, on top of starc_mpi.hpp
// (the distribution). Every rank keeps a full-length replica of each property; a kernel runs
// over the rank's own vertices and may write replica entries of other ranks' vertices. The
// generated host registers, before the kernel, what the kernel's superstep exchanges (the
// facts of starc/analysis/distribution.py), then calls finish() after it:
//
//   update(a, op, scope)   entries of other ranks' vertices the kernel wrote go to their
//                          owners, combined at the sender (one entry per vertex: the replica
//                          holds every local update already combined; accumulations start
//                          from the operator's identity) and applied there with `op`.
//   secondary(a, primary)  a Min/Max's secondary target: sent with its primary's entries and
//                          applied only where that entry won at the owner.
//   refresh(a, scope)      owners send the values of their vertices that changed in this
//                          superstep to the ranks that hold them as ghosts (or to all ranks).
//   scalar(a, how)         a one-value array: combined across ranks by MPI_Allreduce.
//   errors(site, value)    the run-time error word: the rank with the first failed check wins.
//
// finish() makes at most two personalised all-to-all exchanges (updates, then refreshes),
// each one MPI_Alltoall of byte counts and one MPI_Alltoallv of data, whatever the number of
// arrays: one message per rank pair per phase. Change detection compares with a snapshot
// taken at registration, byte for byte (a NaN that stays NaN is unchanged).
#ifndef STARC_MPI_SUPERSTEP_HPP
#define STARC_MPI_SUPERSTEP_HPP

#include <mpi.h>

#include <algorithm>
#include <climits>
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

}  // namespace detail

class Superstep {
 public:
  explicit Superstep(Distribution& dist) : d_(dist) {}

  /// Remote updates of `a` with `op` at ghosts (Scope::Neighbour) or anywhere.
  template <class T> void update(T* a, Op op, Scope scope) {
    Field& f = field(a);
    f.op = op;
    f.scope = scope;
    f.updated = true;
    bool accumulates = op != Op::Store && op != Op::Min && op != Op::Max;
    if (accumulates) {
      T zero = detail::identity<T>(op);
      for_targets(scope, [&](int v) { a[v] = zero; });
      f.is_identity = [a, zero](int v) { return detail::same(a[v], zero); };
    }
  }

  /// A secondary target of the Min/Max whose primary target is `primary`.
  template <class T, class P> void secondary(T* a, P* primary) {
    Field& f = field(a);
    f.primary = index_of(primary);
    f.scope = fields_[static_cast<size_t>(f.primary)].scope;
    f.updated = true;
  }

  /// Owners refresh other ranks' replicas of `a` where it changed in this superstep.
  template <class T> void refresh(T* a, Scope scope) {
    Field& f = field(a);
    f.refreshed = true;
    f.refresh_scope = scope;
  }

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
    // Every replica entry of another rank's vertex that the kernel updated is its value
    // before the kernel again; the owners' refreshes bring what really changed.
    for (Field& f : fields_)
      if (f.updated) f.restore_ghosts();
    if (any([](const Field& f) { return f.refreshed; })) exchange_refreshes(sent);
    for (long long count : sent)
      if (count > d_.stats.max_pair_messages_per_superstep) d_.stats.max_pair_messages_per_superstep = count;
    d_.stats.max_superstep_bytes = std::max(d_.stats.max_superstep_bytes, d_.stats.bytes - bytes_before);
    for (auto& combine : scalars_) combine();
  }

 private:
  struct Field {
    void* data = nullptr;
    size_t size = 0;                      // bytes per element
    std::vector<char> snapshot;           // the whole replica before the kernel
    Op op = Op::Store;
    Scope scope = Scope::Neighbour, refresh_scope = Scope::Neighbour;
    bool updated = false, refreshed = false;
    int primary = -1;                     // secondary: index of the primary field
    std::function<bool(int)> is_identity;
    std::function<bool(char*, const char*, Op)> apply;   // cell, value: whether it won
    std::function<void()> restore_ghosts;

    bool changed(int v) const {
      return std::memcmp(static_cast<const char*>(data) + static_cast<size_t>(v) * size,
                         snapshot.data() + static_cast<size_t>(v) * size, size) != 0;
    }
    char* cell(int v) const { return static_cast<char*>(data) + static_cast<size_t>(v) * size; }
  };

  template <class T> Field& field(T* a) {
    for (Field& f : fields_)
      if (f.data == a) return f;
    fields_.emplace_back();
    Field& f = fields_.back();
    f.data = a;
    f.size = sizeof(T);
    size_t n = static_cast<size_t>(d_.graph.num_nodes);
    f.snapshot.assign(reinterpret_cast<const char*>(a), reinterpret_cast<const char*>(a + n));
    f.apply = [](char* cell, const char* value, Op op) {
      T c, v;
      std::memcpy(&c, cell, sizeof(T));
      std::memcpy(&v, value, sizeof(T));
      bool won = detail::apply(c, v, op);
      std::memcpy(cell, &c, sizeof(T));
      return won;
    };
    Field* self = &f;
    f.restore_ghosts = [this, self] {
      for_targets(self->scope, [&](int v) { std::memcpy(self->cell(v), self->snapshot.data() + static_cast<size_t>(v) * self->size, self->size); });
    };
    return f;
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

  /// Calls body(v) for every vertex another rank owns that the scope reaches.
  template <class Body> void for_targets(Scope scope, Body body) const {
    if (scope == Scope::Neighbour) {
      for (int v : d_.ghosts) body(v);
      return;
    }
    for (int v = 0; v < d_.first; ++v) body(v);
    for (int v = d_.last; v < d_.graph.num_nodes; ++v) body(v);
  }

  /// Whether the update of a primary field `f` at v must be sent.
  bool sends(const Field& f, int v) const { return f.is_identity ? !f.is_identity(v) : f.changed(v); }

  // Wire format, per destination: for each updated field in registration order, an int count
  // then (int vertex, value) entries; a secondary field sends its primary's vertices' values.
  void exchange_updates(std::vector<long long>& sent) {
    int R = d_.ranks;
    std::vector<std::vector<char>> out(static_cast<size_t>(R));
    std::vector<std::vector<int>> chosen(fields_.size());   // per field: vertices, rank order
    for (size_t i = 0; i < fields_.size(); ++i) {
      const Field& f = fields_[i];
      if (!f.updated || f.primary >= 0) continue;
      for_targets(f.scope, [&](int v) {
        if (sends(f, v)) chosen[i].push_back(v);
      });
    }
    for (int r = 0; r < R; ++r) {
      if (r == d_.rank) continue;
      int lo = d_.splits[static_cast<size_t>(r)], hi = d_.splits[static_cast<size_t>(r) + 1];
      std::vector<char>& buf = out[static_cast<size_t>(r)];
      int entries = 0;
      for (size_t i = 0; i < fields_.size(); ++i) {
        const Field& f = fields_[i];
        if (!f.updated) continue;
        const std::vector<int>& vs = chosen[static_cast<size_t>(f.primary >= 0 ? f.primary : static_cast<int>(i))];
        auto first = std::lower_bound(vs.begin(), vs.end(), lo), last = std::lower_bound(vs.begin(), vs.end(), hi);
        int count = static_cast<int>(last - first);
        detail::put(buf, &count, sizeof count);
        for (auto it = first; it != last; ++it) {
          detail::put(buf, &*it, sizeof(int));
          detail::put(buf, f.cell(*it), f.size);
        }
        entries += count;
      }
      if (entries == 0) buf.clear();   // counts alone: nothing to send
      d_.stats.entries += entries;
    }
    std::vector<char> in = all_to_all(out, sent);
    // Apply in rank order (deterministic): primaries first, recording which entries won.
    std::vector<std::vector<char>> won(fields_.size());
    std::vector<size_t> next(fields_.size(), 0);   // secondaries: the primary's next entry
    for (int pass = 0; pass < 2; ++pass) {
      const char* p = in.data();
      const char* end = p + in.size();
      while (p < end) {
        for (size_t i = 0; i < fields_.size(); ++i) {
          const Field& f = fields_[i];
          if (!f.updated) continue;
          int count;
          std::memcpy(&count, p, sizeof count);
          p += sizeof count;
          bool now = (pass == 0) == (f.primary < 0);
          int previous = -1;   // a sender's entries come in increasing vertex order
          for (int k = 0; k < count; ++k, p += sizeof(int) + f.size) {
            if (!now) continue;
            int v;
            std::memcpy(&v, p, sizeof v);
            long long per_vertex = v > previous ? 1 : 2;   // 2: a vertex twice (not combined)
            if (per_vertex > d_.stats.max_entries_per_vertex) d_.stats.max_entries_per_vertex = per_vertex;
            previous = v;
            if (f.primary < 0) {
              won[i].push_back(f.apply(f.cell(v), p + sizeof(int), f.op) ? 1 : 0);
            } else if (won[static_cast<size_t>(f.primary)][next[i]++]) {
              std::memcpy(f.cell(v), p + sizeof(int), f.size);
            }
          }
        }
      }
    }
  }

  // Refresh: per destination, for each refreshed field an int count then (vertex, value).
  void exchange_refreshes(std::vector<long long>& sent) {
    int R = d_.ranks;
    std::vector<std::vector<char>> out(static_cast<size_t>(R));
    // Scope::Anywhere sends the same changed vertices to every rank: find them once.
    std::vector<std::vector<int>> changed(fields_.size());
    for (size_t i = 0; i < fields_.size(); ++i)
      if (fields_[i].refreshed && fields_[i].refresh_scope == Scope::Anywhere)
        for (int v = d_.first; v < d_.last; ++v)
          if (fields_[i].changed(v)) changed[i].push_back(v);
    for (int r = 0; r < R; ++r) {
      if (r == d_.rank) continue;
      std::vector<char>& buf = out[static_cast<size_t>(r)];
      int entries = 0;
      for (size_t i = 0; i < fields_.size(); ++i) {
        const Field& f = fields_[i];
        if (!f.refreshed) continue;
        size_t at = buf.size();
        int count = 0;
        detail::put(buf, &count, sizeof count);
        auto send = [&](int v) {
          detail::put(buf, &v, sizeof v);
          detail::put(buf, f.cell(v), f.size);
          ++count;
        };
        if (f.refresh_scope == Scope::Neighbour) {
          for (int k = d_.mirror_displs[static_cast<size_t>(r)]; k < d_.mirror_displs[static_cast<size_t>(r) + 1]; ++k)
            if (f.changed(d_.mirrors[static_cast<size_t>(k)])) send(d_.mirrors[static_cast<size_t>(k)]);
        } else {
          for (int v : changed[i]) send(v);
        }
        std::memcpy(buf.data() + at, &count, sizeof count);
        entries += count;
      }
      if (entries == 0) buf.clear();   // counts alone: nothing to send
      d_.stats.entries += entries;
    }
    std::vector<char> in = all_to_all(out, sent);
    const char* p = in.data();
    const char* end = p + in.size();
    while (p < end) {
      for (const Field& f : fields_) {
        if (!f.refreshed) continue;
        int count;
        std::memcpy(&count, p, sizeof count);
        p += sizeof count;
        for (int k = 0; k < count; ++k, p += sizeof(int) + f.size) {
          int v;
          std::memcpy(&v, p, sizeof v);
          std::memcpy(f.cell(v), p + sizeof(int), f.size);
        }
      }
    }
  }

  /// One personalised exchange: byte counts by MPI_Alltoall, then the data by MPI_Alltoallv.
  /// An empty buffer to a rank is not a message (the packers clear buffers of zero counts).
  std::vector<char> all_to_all(std::vector<std::vector<char>>& out, std::vector<long long>& sent) {
    int R = d_.ranks;
    std::vector<int> send_counts(static_cast<size_t>(R)), recv_counts(static_cast<size_t>(R));
    std::vector<int> send_displs(static_cast<size_t>(R)), recv_displs(static_cast<size_t>(R));
    std::vector<char> data;
    for (int r = 0; r < R; ++r) {
      std::vector<char>& buf = out[static_cast<size_t>(r)];
      send_displs[static_cast<size_t>(r)] = static_cast<int>(data.size());
      send_counts[static_cast<size_t>(r)] = static_cast<int>(buf.size());
      data.insert(data.end(), buf.begin(), buf.end());
      if (!buf.empty()) {
        ++d_.stats.messages;
        ++sent[static_cast<size_t>(r)];
        d_.stats.bytes += static_cast<long long>(buf.size());
      }
    }
    ++d_.stats.exchanges;
    MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, d_.comm);
    int total = 0;
    for (int r = 0; r < R; ++r) {
      recv_displs[static_cast<size_t>(r)] = total;
      total += recv_counts[static_cast<size_t>(r)];
    }
    std::vector<char> in(static_cast<size_t>(total));
    MPI_Alltoallv(data.data(), send_counts.data(), send_displs.data(), MPI_CHAR, in.data(),
                  recv_counts.data(), recv_displs.data(), MPI_CHAR, d_.comm);
    return in;
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
  std::deque<Field> fields_;               // stable addresses: closures hold pointers
  std::vector<std::function<void()>> scalars_;
};

}  // namespace starc_mpi

#endif  // STARC_MPI_SUPERSTEP_HPP
