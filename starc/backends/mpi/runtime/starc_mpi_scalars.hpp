// starc MPI runtime: a superstep's one-value results, combined across ranks.
//
// Part of the header-only runtime of starc-generated MPI programs, included by
// starc_mpi_superstep.hpp. What a kernel reduces into a one-value array (bfs's frontier size,
// pr's diff), what it stores into one, and the run-time error word end each superstep with the
// same value on every rank. The reduced scalars ride at the end of every message of the
// superstep's last exchange when its round reaches every rank (Neighbours::complete: two
// ranks, or a power-law graph's peers), each rank folding all ranks' values in rank order (so a
// float sum ends the same everywhere), and the superstep waits for its peers once or twice,
// not once more for an MPI_Allreduce; otherwise the scalars of one type and operator are
// combined by one MPI_Allreduce (bfs's frontier size and edge count travel together). A store
// (the last rank that stored a value wins) and the error word (the first failed check's rank
// wins) take an MPI_Allreduce each.
#ifndef STARC_MPI_SCALARS_HPP
#define STARC_MPI_SCALARS_HPP

#include <chrono>
#include <climits>
#include <cstring>
#include <ctime>
#include <functional>
#include <type_traits>
#include <vector>

#include "starc_mpi.hpp"
#include "starc_mpi_values.hpp"

namespace starc_mpi {

namespace detail {

using Clock = std::chrono::steady_clock;

inline long long since(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t).count();
}

// (detail::process_cpu_ns: starc_mpi.hpp)

/// Adds the time from its construction to its end of scope to `total` (Stats' times), and the
/// process's CPU time over it to `*cpu_total` where that is given (with --stats).
struct Spent {
  long long& total;
  long long* cpu_total = nullptr;
  Clock::time_point from = Clock::now();
  long long cpu_from = cpu_total ? process_cpu_ns() : 0;
  ~Spent() {
    total += since(from);
    if (cpu_total) *cpu_total += process_cpu_ns() - cpu_from;
  }
};

}  // namespace detail

class SuperstepScalars {
 public:
  explicit SuperstepScalars(Distribution& dist) : d_(dist) {}

  /// A one-value array combined across ranks when the superstep ends.
  template <class T> void add(T* a, Combine how) {
    T before = *a;
    if (d_.rank != 0 && (how == Combine::Add || how == Combine::Sub || how == Combine::Mul))
      *a = how == Combine::Mul ? T(1) : T(0);   // rank 0 alone keeps the value before
    if (how == Combine::Store) {
      stores_.push_back([this, a, before] { combine_stored(a, before); });
      return;
    }
    if constexpr (std::is_floating_point<T>::value) {
      if (how == Combine::And || how == Combine::Or) return;   // not an operator on floats
    }
    reductions_.push_back({a, datatype<T>(), mpi_op(how), sizeof(T), folder<T>(how)});
  }

  /// The run-time error word: every rank ends with the first failed check's site and value.
  void errors(int* site, long long* value) {
    stores_.push_back([this, site, value] {
      detail::Spent spent{d_.stats.mpi_ns, d_.mpi_cpu()};
      struct { int site, rank; } mine{*site == 0 ? INT_MAX : *site, d_.rank}, first{};
      MPI_Allreduce(&mine, &first, 1, MPI_2INT, MPI_MINLOC, d_.comm);
      ++d_.stats.reductions;
      ++d_.stats.rounds;
      if (first.site == INT_MAX) return;
      MPI_Bcast(site, 1, MPI_INT, first.rank, d_.comm);
      MPI_Bcast(value, 1, MPI_LONG_LONG, first.rank, d_.comm);
    });
  }

  /// Whether there are reduced values an exchange could carry.
  bool carriable() const { return !reductions_.empty(); }

  /// The reduced values travel at the end of every message of the exchange `phase`, whose
  /// round reaches every rank: this rank's values take their place.
  void carry_in(int phase) {
    phase_ = phase;
    for (const Reduction& red : reductions_) bytes_ += red.size;
    by_rank_.assign(static_cast<size_t>(d_.ranks) * bytes_, 0);
    char* mine = by_rank_.data() + static_cast<size_t>(d_.rank) * bytes_;
    for (const Reduction& red : reductions_) {
      std::memcpy(mine, red.value, red.size);
      mine += red.size;
    }
  }

  /// The bytes at the end of each message of the exchange `phase` (0: it carries nothing).
  size_t carried(int phase) const { return phase == phase_ ? bytes_ : 0; }

  /// Appends this rank's values to a message of `phase` where it carries them; their bytes.
  long long put(std::vector<char>& buf, int phase) const {
    if (phase != phase_) return 0;
    const char* mine = by_rank_.data() + static_cast<size_t>(d_.rank) * bytes_;
    buf.insert(buf.end(), mine, mine + bytes_);
    return static_cast<long long>(bytes_);
  }

  /// Keeps rank `r`'s values, which its message carried at `p`.
  void take(int r, const char* p) {
    std::memcpy(by_rank_.data() + static_cast<size_t>(r) * bytes_, p, bytes_);
  }

  /// Combines everything (collective): the carried values folded, or else reduced; then the
  /// stores and the error word.
  void finish() {
    if (phase_ != 0) fold_carried();
    else reduce();
    for (auto& combine : stores_) combine();
  }

  /// The MPI operator that combines a one-value array reduced with `how` (explain says the
  /// same: starc/backends/mpi/host.py's _MPI_OPS, and tests/teaching checks the two agree).
  static MPI_Op mpi_op(Combine how) {
    switch (how) {
      case Combine::Add: case Combine::Sub: return MPI_SUM;
      case Combine::Mul: return MPI_PROD;
      case Combine::And: return MPI_BAND;
      case Combine::Or: return MPI_BOR;
      case Combine::Min: return MPI_MIN;
      case Combine::Max: case Combine::Flag: return MPI_MAX;   // a flag is 0 or 1: MAX is OR
      default: return MPI_MAX;   // Store: broadcast by combine_stored, never reduced
    }
  }

 private:
  struct Reduction {
    void* value;
    MPI_Datatype type;
    MPI_Op op;
    size_t size;
    void (*fold)(char* into, const char* value);   // `op` on one pair of values, as MPI would
  };

  /// The carried values combined: every rank folds the ranks' values in rank order, so all
  /// end with the same value (a float sum too). One reduction per type and operator, as
  /// reduce counts them.
  void fold_carried() {
    size_t at = 0;
    for (size_t i = 0; i < reductions_.size(); ++i) {
      const Reduction& red = reductions_[i];
      std::vector<char> value(by_rank_.begin() + static_cast<long>(at), by_rank_.begin() + static_cast<long>(at + red.size));
      for (int r = 1; r < d_.ranks; ++r) red.fold(value.data(), by_rank_.data() + static_cast<size_t>(r) * bytes_ + at);
      std::memcpy(red.value, value.data(), red.size);
      bool first_of_group = true;
      for (size_t j = 0; j < i; ++j)
        if (reductions_[j].type == red.type && reductions_[j].op == red.op) first_of_group = false;
      if (first_of_group) ++d_.stats.reductions;
      at += red.size;
    }
  }

  /// The values combined by an operator: one MPI_Allreduce for all of one type and operator
  /// (bfs's awake and scout counts travel together).
  void reduce() {
    std::vector<bool> done(reductions_.size(), false);
    for (size_t i = 0; i < reductions_.size(); ++i) {
      if (done[i]) continue;
      std::vector<size_t> group;
      for (size_t j = i; j < reductions_.size(); ++j)
        if (!done[j] && reductions_[j].type == reductions_[i].type && reductions_[j].op == reductions_[i].op) {
          group.push_back(j);
          done[j] = true;
        }
      size_t size = reductions_[i].size;
      std::vector<char> values(group.size() * size);
      for (size_t k = 0; k < group.size(); ++k) std::memcpy(values.data() + k * size, reductions_[group[k]].value, size);
      {
        detail::Spent spent{d_.stats.mpi_ns, d_.mpi_cpu()};
        MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(group.size()), reductions_[i].type,
                      reductions_[i].op, d_.comm);
      }
      ++d_.stats.reductions;
      ++d_.stats.rounds;
      for (size_t k = 0; k < group.size(); ++k) std::memcpy(reductions_[group[k]].value, values.data() + k * size, size);
    }
  }

  /// The value of the last rank that stored one.
  template <class T> void combine_stored(T* a, T before) {
    int mine = detail::same(*a, before) ? -1 : d_.rank, last = -1;
    detail::Spent spent{d_.stats.mpi_ns, d_.mpi_cpu()};
    MPI_Allreduce(&mine, &last, 1, MPI_INT, MPI_MAX, d_.comm);
    ++d_.stats.reductions;
    ++d_.stats.rounds;
    if (last >= 0) MPI_Bcast(a, static_cast<int>(sizeof(T)), MPI_BYTE, last, d_.comm);
  }

  template <class T, Op op> static void fold(char* into, const char* value) {
    T a, b;
    std::memcpy(&a, into, sizeof(T));
    std::memcpy(&b, value, sizeof(T));
    detail::apply(a, b, op);
    std::memcpy(into, &a, sizeof(T));
  }

  /// fold for the operator mpi_op gives `how` (a flag is 0 or 1: Max is OR).
  template <class T> static void (*folder(Combine how))(char*, const char*) {
    switch (how) {
      case Combine::Add: case Combine::Sub: return &fold<T, Op::Add>;
      case Combine::Mul: return &fold<T, Op::Mul>;
      case Combine::And: return &fold<T, Op::And>;
      case Combine::Or: return &fold<T, Op::Or>;
      case Combine::Min: return &fold<T, Op::Min>;
      default: return &fold<T, Op::Max>;
    }
  }

  Distribution& d_;
  std::vector<std::function<void()>> stores_;   // stores and the error word, in order
  std::vector<Reduction> reductions_;
  // The values carried by an exchange (carry_in): its phase (0: none), the bytes of one rank's
  // values, and every rank's values, by rank.
  int phase_ = 0;
  size_t bytes_ = 0;
  std::vector<char> by_rank_;
};

}  // namespace starc_mpi

#endif  // STARC_MPI_SCALARS_HPP
