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
//   queue(a, order, length)  a claim's worklist (a BFS's order of the rank's own vertices):
//                          where an update of `a` wins at an own vertex, the owner appends
//                          that vertex, order[(*length)++] (the claim's other appends are the
//                          kernel's).
//   refresh(a, scope)      owners send the values of their vertices that changed in this
//                          superstep to the ranks that hold them as ghosts (or to all ranks).
//   refresh_every(a)       owners send every mirror's value, values only, in the order of the
//                          mirrors (the kernel writes every own vertex: nothing to detect).
//   keep_candidates(a)     a Min/Max target nothing reads at ghosts but the comparison: the
//                          ghost copies keep what this rank sent (a bound on the owner's
//                          value) instead of being refreshed; the owner's combine is all.
//   scalar(a, how)         a one-value array: combined across ranks (carried by the last
//                          exchange, or by MPI_Allreduce: starc_mpi_scalars.hpp).
//   errors(site, value)    the run-time error word: the rank with the first failed check wins.
//
// finish() makes at most two personalised exchanges (updates, then refreshes), each one
// round of point-to-point messages that carry their sizes (detail::exchange_messages in
// starc_mpi_exchange.hpp) among the ranks that share ghosts (every rank when a replica takes
// part), whatever the number of arrays: one message per rank pair per phase. An entry names
// its vertex by its position in the list of ghosts the two ranks share (a replica's: by
// global id), as the difference to the previous entry's in a variable-length integer, so a
// vertex costs a byte or two besides its value. A section's header is one varint: 0 for none, the count (doubled) before the
// names, or, for a single entry, its name folded in (doubled, plus one): a BFS sends one or
// two vertices per array and superstep on a mesh, where a separate count cost a byte per
// entry. The first name of a section is the signed difference to the previous section's
// first name in the message (the arrays of one superstep change at nearby vertices), the
// others the difference to the entry before. A refresh's section of a local array is instead
// a bitmap over the pair's shared list (header byte 2, then one bit a ghost, then the values
// of the set bits in order) where that is no larger: no names to list, encode or decode when
// most of the list changed at once, as in a BFS. A secondary's section is its values alone, one
// per entry of its primary's section. Change detection compares, byte for byte (a NaN that
// stays NaN is unchanged), with the values kept at registration where the superstep looks: a
// local array's ghosts (what an update sends, and restores) and its distinct mirrors (what a
// refresh sends), each kept and compared once in bulk, the changed ones listed; a replica's
// are the whole array. A refresh phase of refresh_every arrays alone has sizes both sides
// know (the mirrors' and the ghosts' counts): one neighbour collective of the values.
// The scalars ride at the end of every message of the superstep's last exchange when its
// round reaches every rank (Neighbours::complete), else one MPI_Allreduce combines them
// (SuperstepScalars).
#ifndef STARC_MPI_SUPERSTEP_HPP
#define STARC_MPI_SUPERSTEP_HPP

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <limits>
#include <type_traits>
#include <vector>

#include "starc_mpi.hpp"
#include "starc_mpi_scalars.hpp"
#include "starc_mpi_sections.hpp"
#include "starc_mpi_values.hpp"

namespace starc_mpi {

class Superstep {
 public:
  explicit Superstep(Distribution& dist)
      : d_(dist), started_(Clock::now()),
        work_from_(dist.stats_enabled ? detail::process_cpu_ns() - dist.stats.mpi_cpu_ns : 0) {}

  /// Remote updates of `a` with `op` at ghosts (Scope::Neighbour, a local array) or anywhere
  /// (a replica).
  template <class T> void update(T* a, Op op, Scope scope) {
    Field& f = field(a, scope);
    watch_targets(f);
    f.op = op;
    f.updated = true;
    bool accumulates = op != Op::Store && op != Op::Min && op != Op::Max;
    if (accumulates) {
      Spent spent = registering();
      T zero = detail::identity<T>(op);
      for_targets(f, [&](int v) { a[v] = zero; });
      f.is_identity = [a, zero](int v) { return detail::same(a[v], zero); };
    }
  }

  /// A secondary target of the Min/Max whose primary target is `primary`.
  template <class T, class P> void secondary(T* a, P* primary) {
    int index = index_of(primary);
    Field& f = field(a, fields_[static_cast<size_t>(index)].scope);
    watch_targets(f);
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

  /// Own vertices where an update of `a` (registered with update()) wins join `order`.
  template <class T> void queue(T* a, int* order, int* length) {
    Field& f = field(a, Scope::Neighbour);
    f.queue = order;
    f.queue_length = length;
  }

  /// Owners refresh other ranks' copies of `a` where it changed in this superstep.
  template <class T> void refresh(T* a, Scope scope) {
    Field& f = field(a, scope);
    if (f.scope == Scope::Anywhere) take_snapshot(f);
    else watch_mirrors(f);
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

  /// A one-value array combined across ranks when the superstep ends (starc_mpi_scalars.hpp).
  template <class T> void scalar(T* a, Combine how) { scalars_.add(a, how); }

  /// The run-time error word: every rank ends with the first failed check's site and value.
  void errors(int* site, long long* value) { scalars_.errors(site, value); }

  /// Exchanges everything registered (collective; every rank registered the same fields).
  void finish();

 private:
  using Field = detail::SuperstepField;

  template <class T> Field& field(T* a, Scope scope) {
    for (Field& f : fields_)
      if (f.data == reinterpret_cast<char*>(a)) return f;
    fields_.emplace_back();
    Field& f = fields_.back();
    f.data = reinterpret_cast<char*>(a);
    f.size = sizeof(T);
    f.scope = scope;
    f.gather = detail::gather<T>;
    f.scatter = detail::scatter<T>;
    f.compare = detail::compare<T>;
    f.gather_ghosts = detail::gather_runs<T>;
    f.scatter_ghosts = detail::scatter_runs<T>;
    f.compare_ghosts = detail::compare_runs<T>;
    f.apply_section = detail::apply_section<T>;
    return f;
  }

  /// The field's values before the kernel, for change detection and restores (once).
  void take_snapshot(Field& f) {
    if (f.snapshot_taken) return;
    Spent spent = registering();
    size_t count = static_cast<size_t>(f.scope == Scope::Anywhere ? d_.graph.num_nodes : d_.local_nodes);
    f.snapshot.assign(f.data, f.data + count * f.size);
    f.snapshot_taken = true;
    d_.stats.watched += static_cast<long long>(count);
  }

  /// The values of the vertices of other ranks the kernel may write: a local array's ghosts,
  /// or the whole replica.
  void watch_targets(Field& f) {
    if (f.scope == Scope::Anywhere) return take_snapshot(f);
    if (f.ghosts_watched) return;
    Spent spent = registering();
    index_ghost_runs(d_);
    f.ghosts_before.resize(d_.ghost_local.size() * f.size);
    f.gather_ghosts(f.data, d_.ghost_runs, f.ghosts_before.data());
    f.ghosts_watched = true;
    d_.stats.watched += static_cast<long long>(d_.ghost_local.size());
  }

  /// The values of a local array's distinct mirrors, for the refresh to find those that changed.
  void watch_mirrors(Field& f) {
    if (f.mirrors_watched) return;
    Spent spent = registering();
    index_mirrors(d_);
    f.mirrors_before.resize(d_.mirror_set.size() * f.size);
    f.gather(f.data, d_.mirror_set.data(), d_.mirror_set.size(), f.mirrors_before.data());
    f.mirrors_watched = true;
    d_.stats.watched += static_cast<long long>(d_.mirror_set.size());
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

  // Updates, per destination: for each updated field in registration order a section; a
  // secondary field's section holds values alone, those of its primary's entries.
  void exchange_updates(std::vector<long long>& sent) {
    const detail::Neighbours& n = neighbours([](const Field& f) { return f.updated; });
    for (Field& f : fields_)
      if (f.updated && f.primary < 0 && f.scope == Scope::Neighbour && !f.is_identity)
        f.compare_ghosts(f.data, d_.ghost_runs, f.ghosts_before.data(), f.ghost_changes);
    std::vector<char> buf;   // every destination's message, one after the other
    std::vector<long long> send_bytes(n.destinations.size(), 0);
    std::vector<detail::Entries> chosen(fields_.size());   // one destination's, reused
    for (size_t k = 0; k < n.destinations.size(); ++k) {
      int r = n.destinations[k];
      if (r == d_.rank) continue;
      size_t start = buf.size();
      long long entries = 0;
      int base = -1;
      for (size_t i = 0; i < fields_.size(); ++i) {
        const Field& f = fields_[i];
        if (!f.updated) continue;
        if (f.primary >= 0) {   // its primary's entries, listed before it
          if (!f.constant.empty()) continue;
          const detail::Entries& mine = chosen[static_cast<size_t>(f.primary)];
          detail::put_values(buf, f, mine);
          entries += static_cast<long long>(mine.size());
          continue;
        }
        detail::Entries& mine = chosen[i];
        mine.clear();
        if (f.scope == Scope::Neighbour) {
          int base = d_.ghost_displs[static_cast<size_t>(r)], end = d_.ghost_displs[static_cast<size_t>(r) + 1];
          if (f.is_identity) {
            for (int g = base; g < end; ++g) {
              int v = d_.ghost_local[static_cast<size_t>(g)];
              if (!f.is_identity(v)) mine.listed.push_back({g - base, v});
            }
          } else {   // the changed ghosts of r: a run of the ascending list
            auto from = std::lower_bound(f.ghost_changes.begin(), f.ghost_changes.end(), base);
            auto to = std::lower_bound(from, f.ghost_changes.end(), end);
            mine.ghosts = f.ghost_changes.data() + (from - f.ghost_changes.begin());
            mine.run = static_cast<size_t>(to - from);
            mine.ghost_local = d_.ghost_local.data();
            mine.first = base;
          }
        } else if (f.is_identity) {
          for (int v = d_.splits[static_cast<size_t>(r)]; v < d_.splits[static_cast<size_t>(r) + 1]; ++v)
            if (!f.is_identity(v)) mine.listed.push_back({v, v});
        } else {
          f.changes(d_.splits[static_cast<size_t>(r)], d_.splits[static_cast<size_t>(r) + 1], mine.listed);
        }
        detail::put_section(buf, f, mine, base);
        entries += static_cast<long long>(mine.size());
      }
      send_bytes[k] = close_buffer(buf, start, entries) + scalars_.put(buf, kUpdates);
    }
    // What a primary's winning entry sets besides itself: its constant secondaries' cells, and
    // where a secondary carries values, the entries' vertices to apply them at.
    std::vector<std::vector<detail::ConstantTarget>> constants(fields_.size());
    std::vector<std::vector<int>> at(fields_.size());
    std::vector<detail::Winners> winners(fields_.size());
    for (const Field& f : fields_)
      if (f.updated && f.primary >= 0 && !f.constant.empty())
        constants[static_cast<size_t>(f.primary)].push_back({f.data, f.size, f.constant.data()});
    for (size_t i = 0; i < fields_.size(); ++i) {
      winners[i].constants = constants[i].data();
      winners[i].count = constants[i].size();
      winners[i].queue = fields_[i].queue;
      winners[i].length = fields_[i].queue_length;
    }
    for (const Field& f : fields_)
      if (f.updated && f.primary >= 0 && f.constant.empty()) winners[static_cast<size_t>(f.primary)].at = &at[static_cast<size_t>(f.primary)];
    exchange(n, buf, send_bytes, sent, nullptr, kUpdates, [&](int r, const char* p) {
      int base = -1;
      for (std::vector<int>& list : at) list.clear();
      for (size_t i = 0; i < fields_.size(); ++i) {
        const Field& f = fields_[i];
        if (!f.updated) continue;
        if (f.primary >= 0) {  // applied only where the primary's entry won
          if (!f.constant.empty()) continue;   // applied with it
          for (int v : at[static_cast<size_t>(f.primary)]) {
            if (v >= 0) detail::copy_value(f.cell(v), p, f.size);
            p += f.size;
          }
          continue;
        }
        int name = -1;
        size_t count = detail::get_section(p, base, name);
        if (count == 0) continue;
        const int* names = f.scope == Scope::Neighbour ? d_.mirrors.data() + d_.mirror_displs[static_cast<size_t>(r)] : nullptr;
        bool repeated = false;   // a vertex twice (not combined)
        p = f.apply_section(f.data, p, count, name, names, f.op, winners[i], repeated);
        d_.stats.max_entries_per_vertex = std::max(d_.stats.max_entries_per_vertex, repeated ? 2LL : 1LL);
      }
    });
  }

  // Refreshes, per destination: for each refreshed field a section of the owner's changed
  // values (a local array: its mirrors the destination holds as ghosts; a replica: every
  // changed own vertex, to every rank). A local array's section to a rank is a bitmap over the
  // pair's shared list where that is no larger than the names (a byte or more each): in a
  // BFS most of a rank's ghosts change in one or two supersteps, where encoding, decoding and
  // listing each entry's name were most of the runtime's work (perf, R-MAT 18, 16 ranks).
  void exchange_refreshes(std::vector<long long>& sent) {
    const detail::Neighbours& n = neighbours([](const Field& f) { return f.refreshed; });
    const size_t R = static_cast<size_t>(d_.ranks);
    // a local array's changed mirrors, per destination: the bits of a bitmap over its list
    // (bits[i] from byte d_.mirror_bit_displs[r]), one pass over the changes' uses, and their
    // count; a destination's section is then that bitmap or the names of its set bits
    // (put_named_section)
    std::vector<std::vector<size_t>> per_rank(fields_.size());
    std::vector<std::vector<unsigned char>> bits(fields_.size());
    for (size_t i = 0; i < fields_.size(); ++i) {
      Field& f = fields_[i];
      if (!f.refreshed || f.every || f.scope != Scope::Neighbour) continue;
      f.compare(f.data, d_.mirror_set.data(), d_.mirror_set.size(), f.mirrors_before.data(), f.mirror_changes);
      const int* use_displs = d_.mirror_use_displs.data();
      const unsigned* use_bit = d_.mirror_use_bit.data();
      const size_t* bit_displs = d_.mirror_bit_displs.data();
      unsigned char* map = (bits[i] = std::vector<unsigned char>(bit_displs[R], 0)).data();
      for (int slot : f.mirror_changes)
        for (int u = use_displs[slot]; u < use_displs[slot + 1]; ++u)
          map[use_bit[u] >> 3] |= static_cast<unsigned char>(1u << (use_bit[u] & 7));
      per_rank[i].resize(R);
      for (size_t r = 0; r < R; ++r) per_rank[i][r] = detail::count_bits(map + bit_displs[r], bit_displs[r + 1] - bit_displs[r]);
    }
    std::vector<std::vector<std::pair<int, int>>> changed(fields_.size());   // replicas
    for (size_t i = 0; i < fields_.size(); ++i)
      if (fields_[i].refreshed && fields_[i].scope == Scope::Anywhere) fields_[i].changes(d_.first, d_.last, changed[i]);
    std::vector<char> buf;   // every destination's message, one after the other
    size_t room = 0;         // the most it can take: one allocation
    for (size_t i = 0; i < fields_.size(); ++i) {
      const Field& f = fields_[i];
      if (!f.refreshed) continue;
      size_t values = f.every ? d_.mirrors.size() : f.scope == Scope::Anywhere ? changed[i].size() * n.destinations.size() : 0;
      for (size_t count : per_rank[i]) values += count;
      room += n.destinations.size() * 2 * detail::kMaxVarint + values * (detail::kMaxIntVarint + f.size) + bits[i].size();
    }
    room += n.destinations.size() * scalars_.carried(kRefreshes);
    buf.reserve(room);
    std::vector<long long> send_bytes(n.destinations.size(), 0);
    for (size_t k = 0; k < n.destinations.size(); ++k) {
      int r = n.destinations[k];
      if (r == d_.rank) continue;
      size_t start = buf.size();
      long long entries = 0;
      int base = -1;
      for (size_t i = 0; i < fields_.size(); ++i) {
        const Field& f = fields_[i];
        if (!f.refreshed) continue;
        if (f.every) {   // no count, no names: the receiver's ghosts from this rank, in order
          int from = d_.mirror_displs[static_cast<size_t>(r)], count = d_.mirror_displs[static_cast<size_t>(r) + 1] - from;
          size_t at = buf.size();
          buf.resize(at + static_cast<size_t>(count) * f.size);
          f.gather(f.data, d_.mirrors.data() + from, static_cast<size_t>(count), buf.data() + at);
          entries += count;
          continue;
        }
        if (f.scope == Scope::Neighbour) {
          const size_t count = per_rank[i][static_cast<size_t>(r)];
          const unsigned char* map = bits[i].data() + d_.mirror_bit_displs[static_cast<size_t>(r)];
          if (count > 0 && detail::bitmap(d_, static_cast<size_t>(r), count))
            detail::put_bitmap_section(d_, buf, f, map, static_cast<size_t>(r), count);
          else
            detail::put_named_section(d_, buf, f, map, static_cast<size_t>(r), count, base);
          entries += static_cast<long long>(count);
          continue;
        }
        detail::put_section(buf, f, changed[i], base);
        entries += static_cast<long long>(changed[i].size());
      }
      send_bytes[k] = close_buffer(buf, start, entries) + scalars_.put(buf, kRefreshes);
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
    exchange(n, buf, send_bytes, sent, known ? &expected : nullptr, kRefreshes, [&](int r, const char* p) {
      int base = -1;
      for (const Field& f : fields_) {
        if (!f.refreshed) continue;
        if (f.every) {
          int from = d_.ghost_displs[static_cast<size_t>(r)], count = d_.ghost_displs[static_cast<size_t>(r) + 1] - from;
          f.scatter(f.data, d_.ghost_local.data() + from, static_cast<size_t>(count), p);
          p += static_cast<size_t>(count) * f.size;
          continue;
        }
        if (f.scope == Scope::Neighbour && static_cast<unsigned char>(*p) == detail::kBitmapSection) {
          const int* ghosts = d_.ghost_local.data() + d_.ghost_displs[static_cast<size_t>(r)];
          const size_t names = static_cast<size_t>(d_.ghost_displs[static_cast<size_t>(r) + 1] - d_.ghost_displs[static_cast<size_t>(r)]);
          const unsigned char* map = reinterpret_cast<const unsigned char*>(p + 1);
          p += 1 + (names + 7) / 8;
          detail::for_bits(map, names, [&](int name) {
            detail::copy_value(f.cell(ghosts[name]), p, f.size);
            p += f.size;
          });
          continue;
        }
        int name = -1;
        size_t count = detail::get_section(p, base, name);
        for (size_t e = 0; e < count; ++e, p += f.size) {
          if (e > 0) name += static_cast<int>(detail::get_varint(p));
          int v = f.scope == Scope::Neighbour ? d_.ghost_local[static_cast<size_t>(d_.ghost_displs[static_cast<size_t>(r)] + name)]
                                              : name;
          detail::copy_value(f.cell(v), p, f.size);
        }
      }
    });
  }

  /// Ends the message to one rank, which began at `start` of `buf`; returns its size. One with
  /// counts alone (no entries) is not sent.
  long long close_buffer(std::vector<char>& buf, size_t start, long long entries) {
    if (entries == 0) buf.resize(start);
    d_.stats.entries += entries;
    return static_cast<long long>(buf.size() - start);
  }

  /// The tags of a superstep's two phases (exchange): a rank may be in the next phase while a
  /// slower peer is still in this one.
  enum Tag : int { kUpdates = 1, kRefreshes = 2 };

  /// One personalised exchange over `n` of `data`, destination k's message the next
  /// send_bytes[k] bytes: one round of messages whose sizes come with them
  /// (detail::exchange_messages), or, where `known` gives what each source sends, one
  /// collective of the data alone; then read(r, p) for each non-empty message, p at its
  /// first byte, r the rank that sent it. An empty message (close_buffer) carries nothing.
  template <class Read>
  void exchange(const detail::Neighbours& n, const std::vector<char>& data, const std::vector<long long>& send_bytes,
                std::vector<long long>& sent, const std::vector<long long>* known, Tag tag, Read read) {
    std::vector<long long> send_displs = detail::prefix(send_bytes);
    const long long carried = static_cast<long long>(scalars_.carried(tag));
    // (the stats count the arrays' bytes: the scalars carried stand for an MPI_Allreduce)
    for (size_t k = 0; k < send_bytes.size(); ++k) {
      long long bytes = send_bytes[k] - (n.destinations[k] == d_.rank ? 0 : carried);
      if (bytes > 0) {
        ++d_.stats.messages;
        ++sent[static_cast<size_t>(n.destinations[k])];
        d_.stats.bytes += bytes;
      }
    }
    ++d_.stats.exchanges;
    ++d_.stats.rounds;
    std::vector<long long> displs;
    std::vector<char> in;
    if (known) {
      std::vector<long long> sizes = *known;   // and the scalars each other rank carries
      for (size_t k = 0; k < sizes.size(); ++k) sizes[k] += n.sources[k] == d_.rank ? 0 : carried;
      displs = detail::prefix(sizes);
      in.resize(static_cast<size_t>(displs.back()));
      Spent spent{d_.stats.mpi_ns, d_.mpi_cpu()};
      detail::exchange_data(n, data.data(), send_bytes, send_displs, in.data(), sizes, displs);
    } else {
      Spent spent{d_.stats.mpi_ns, d_.mpi_cpu()};
      detail::exchange_messages(n, data.data(), send_bytes, send_displs, in, displs, tag);
    }
    for (size_t k = 0; k < n.sources.size(); ++k) {
      const int r = n.sources[k];
      long long end = displs[k + 1] - (r == d_.rank ? 0 : carried);
      if (r != d_.rank && carried > 0)
        scalars_.take(r, in.data() + end);
      if (end > displs[k]) read(r, in.data() + displs[k]);
    }
  }

  /// Whether the scalars travel with the superstep's last exchange: where its round reaches
  /// every rank, no MPI_Allreduce follows it.
  void plan_carrying(bool updates, bool refreshes) {
    if (!scalars_.carriable() || (!updates && !refreshes)) return;
    const detail::Neighbours& n = refreshes ? neighbours([](const Field& f) { return f.refreshed; })
                                            : neighbours([](const Field& f) { return f.updated; });
    if (n.complete) scalars_.carry_in(refreshes ? kRefreshes : kUpdates);
  }

  using Clock = detail::Clock;
  using Spent = detail::Spent;

  /// Times registering an array (watching its values), in CPU time too with --stats.
  Spent registering() { return Spent{registering_ns_, d_.stats_enabled ? &registering_cpu_ns_ : nullptr}; }

  Distribution& d_;
  Clock::time_point started_;              // the superstep's start (its kernel follows)
  long long work_from_;                    // with --stats: CPU time less MPI calls' at the start
  long long registering_ns_ = 0;           // of that, registering arrays (watching values)
  long long registering_cpu_ns_ = 0;       // the same in CPU time (with --stats)
  std::deque<Field> fields_;               // stable addresses
  SuperstepScalars scalars_{d_};   // the one-value arrays, stores and the error word
};

#if STARC_DEFINE_ENTRIES
STARC_ENTRY void Superstep::finish() {
  Clock::time_point finishing = Clock::now();
  if (d_.stats_enabled)
    d_.stats.superstep_kernel_ns.push_back(detail::process_cpu_ns() - d_.stats.mpi_cpu_ns - work_from_ - registering_cpu_ns_);
  d_.stats.kernel_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(finishing - started_).count() - registering_ns_;
  long long mpi_before = d_.stats.mpi_ns;
  ++d_.stats.supersteps;
  long long bytes_before = d_.stats.bytes;
  std::vector<long long> sent(static_cast<size_t>(d_.ranks), 0);
  const bool updates = any([](const Field& f) { return f.updated; }), refreshes = any([](const Field& f) { return f.refreshed; });
  plan_carrying(updates, refreshes);
  if (updates) exchange_updates(sent);
  // Every copy of another rank's vertex that the kernel updated holds its value before the
  // kernel again; the owners' refreshes bring what really changed.
  for (Field& f : fields_) {
    if (!f.updated || f.keeps) continue;
    if (f.scope != Scope::Neighbour) {
      for_targets(f, [&](int v) { detail::copy_value(f.cell(v), f.before(v), f.size); });
    } else if (f.primary < 0 && !f.is_identity) {   // only those that changed (exchange_updates
      for (int g : f.ghost_changes)                 // listed them): not every ghost a superstep
        detail::copy_value(f.cell(d_.ghost_local[static_cast<size_t>(g)]),
                           f.ghosts_before.data() + static_cast<size_t>(g) * f.size, f.size);
    } else {
      f.scatter_ghosts(f.data, d_.ghost_runs, f.ghosts_before.data());
    }
  }
  if (refreshes) exchange_refreshes(sent);
  for (long long count : sent)
    if (count > d_.stats.max_pair_messages_per_superstep) d_.stats.max_pair_messages_per_superstep = count;
  d_.stats.max_superstep_bytes = std::max(d_.stats.max_superstep_bytes, d_.stats.bytes - bytes_before);
  scalars_.finish();
  d_.stats.runtime_ns += registering_ns_ + detail::since(finishing) - (d_.stats.mpi_ns - mpi_before);
  if (d_.stats_enabled)
    d_.stats.superstep_work_ns.push_back(detail::process_cpu_ns() - d_.stats.mpi_cpu_ns - work_from_);
}
#endif

}  // namespace starc_mpi

#endif  // STARC_MPI_SUPERSTEP_HPP
