// starc runtime: the shared, header-only C++17 host support of starc-generated programs.
//
// Included by the generated CUDA, SYCL, OpenACC and MPI hosts; nothing here is specific to
// one of them. It provides, in namespace starc:
//   starc_graph.hpp    Graph, read_graph, InputError   (edge list / Matrix Market / .sg -> CSR)
//   starc_cli.hpp      CommandLine, ParamSpec, UsageError (./prog GRAPH_FILE [--name value ...])
//   starc_results.hpp  Results                         (the shared results format)
//   starc_degree_order.hpp  order_by_degree, DegreeOrderMode (--degree-order; triangle counts)
//   starc_support.hpp  edge_weights, assign_edge_weights, min_weight, max_weight (propEdge parameters, minWt/maxWt), window_delta
//   this file          Timer, report_time, guarded_main (timing and exit statuses)
// Exit statuses: 0 success, 1 bad input file, 2 bad command line, 3 any other error.
#ifndef STARC_RUNTIME_HPP
#define STARC_RUNTIME_HPP

#include <chrono>
#include <cstdio>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include "starc_cli.hpp"
#include "starc_degree_order.hpp"
#include "starc_graph.hpp"
#include "starc_results.hpp"
#include "starc_slack_rows.hpp"
#include "starc_support.hpp"
#include "starc_updates.hpp"

namespace starc {

/// A stopwatch on std::chrono::steady_clock; seconds() sums every start/stop interval so far
/// (including a running one).
class Timer {
 public:
  void start() {
    begin_ = clock::now();
    running_ = true;
  }
  void stop() {
    if (!running_) return;
    total_ += clock::now() - begin_;
    running_ = false;
  }
  void reset() {
    total_ = clock::duration::zero();
    running_ = false;
  }
  double seconds() const {
    clock::duration total = total_;
    if (running_) total += clock::now() - begin_;
    return std::chrono::duration<double>(total).count();
  }

 private:
  using clock = std::chrono::steady_clock;
  clock::time_point begin_{};
  clock::duration total_ = clock::duration::zero();
  bool running_ = false;
};

/// Prints "starc-time <seconds>" on stderr (the --time contract).
inline void report_time(double seconds) {
  std::fprintf(stderr, "starc-time %.6f\n", seconds);
  std::fflush(stderr);
}

/// Prints "<name> <seconds>" on stderr, a part of a Dynamic program's starc-time:
/// "starc-update-time", applying its batches to the graph (its host copy and the device's),
/// and "starc-batch-time", its Batch loops (the updates included; the rest of starc-time is
/// its static part), so that a batch's algorithm and the static run come from one trial.
inline void report_part_time(const char* name, double seconds) {
  std::fprintf(stderr, "%s %.6f\n", name, seconds);
  std::fflush(stderr);
}

/// Runs `algorithm` `trials` times (--trials N, as GAPBS's -n), timing each run alone and, when
/// `print` is set, reporting it on its own starc-time line; returns the last run's result. The
/// timed span of a program whose algorithm is one call (the bench baselines); generated
/// programs print the same loop around their own span (common/cpp_host.py).
template <class Algorithm>
auto timed_trials(int trials, bool print, Algorithm algorithm) -> decltype(algorithm()) {
  for (int trial = 1;; ++trial) {
    Timer timer;
    timer.start();
    auto result = algorithm();
    timer.stop();
    if (print) report_time(timer.seconds());
    if (trial >= trials) return result;
  }
}

/// A run-time check site of the generated kernels (starc/analysis/checks.py): kind
/// ("index", "vertex", "edge", "division", "modulo"), DSL location, property name, and
/// whether the limit is the number of edges (else of nodes).
struct CheckSite {
  const char* kind;
  const char* where;
  const char* name;
  bool edges;
};

/// A failed run-time check; guarded_main prints what() alone (the reference executor's
/// "<file>:<line>:<col>: runtime error: <message>") and exits with status 1.
struct CheckError : std::runtime_error {
  using runtime_error::runtime_error;
};

/// The device a program needs is not on this machine (no OpenCL platform, no device of the
/// kind --device names, no CUDA driver or GPU): nothing the program or starc did wrong, so
/// guarded_main prints "<prog>: error: <what>" and exits with status 1, as `starc run` does
/// for a backend that cannot run here, not with status 3 (a bug in starc).
struct DeviceError : std::runtime_error {
  using runtime_error::runtime_error;
};

/// Throws the CheckError of site number `site` (from 1, as the error word holds it).
[[noreturn]] inline void raise_check(int site, long long value, long long num_nodes,
                                     long long num_edges, const CheckSite* sites) {
  const CheckSite& s = sites[site - 1];
  std::string kind = s.kind, message;
  long long limit = s.edges ? num_edges : num_nodes;
  if (kind == "division" || kind == "modulo") {
    message = "integer " + kind + " by zero";
  } else {
    message = kind == "index" ? "index " + std::to_string(value) + " of '" + s.name + "'"
                              : kind + " " + std::to_string(value);
    message += " out of range 0.." + std::to_string(limit - 1);
  }
  throw CheckError(std::string(s.where) + ": runtime error: " + message);
}

/// A property element the host reads or writes: `index` when it is in 0..count-1, else the
/// reference's "index i of 'name' out of range 0..count-1" CheckError at `where`.
inline long long host_index(long long index, long long count, const char* name,
                            const char* where) {
  if (index < 0 || index >= count) {
    throw CheckError(std::string(where) + ": runtime error: index " + std::to_string(index) +
                     " of '" + name + "' out of range 0.." + std::to_string(count - 1));
  }
  return index;
}

/// Host-side integer a / b and a % b (T is int or long long): b == 0 throws the reference's
/// "integer division by zero" CheckError at `where`; INT_MIN / -1 wraps, INT_MIN % -1 is 0.
template <typename T>
inline T host_div(T a, T b, const char* where) {
  if (b == 0) throw CheckError(std::string(where) + ": runtime error: integer division by zero");
  using U = std::make_unsigned_t<T>;
  return b == -1 ? static_cast<T>(U(0) - static_cast<U>(a)) : a / b;
}

template <typename T>
inline T host_mod(T a, T b, const char* where) {
  if (b == 0) throw CheckError(std::string(where) + ": runtime error: integer modulo by zero");
  return b == -1 ? T(0) : a % b;
}

/// Runs body() and maps exceptions to messages and exit statuses: CheckError, InputError and
/// DeviceError 1, UsageError 2 (with a usage hint) and OutputError 2, anything else 3. body
/// may return void (status 0) or an int status.
template <class F>
int guarded_main(const char* prog, F&& body) {
  try {
    if constexpr (std::is_void_v<decltype(body())>) {
      std::forward<F>(body)();
      return 0;
    } else {
      return static_cast<int>(std::forward<F>(body)());
    }
  } catch (const CheckError& error) {
    std::fflush(stdout);
    std::fprintf(stderr, "%s\n", error.what());
    return 1;
  } catch (const InputError& error) {
    std::fflush(stdout);
    std::fprintf(stderr, "%s: error: %s\n", prog, error.what());
    return 1;
  } catch (const DeviceError& error) {
    std::fflush(stdout);
    std::fprintf(stderr, "%s: error: %s\n", prog, error.what());
    return 1;
  } catch (const OutputError& error) {
    std::fprintf(stderr, "%s: error: %s\n", prog, error.what());
    return 2;
  } catch (const UsageError& error) {
    std::fflush(stdout);
    const std::string& usage = detail::usage_line();
    std::fprintf(stderr, "%s: error: %s\n%s\n", prog, error.what(),
                 usage.empty() ? "usage: prog GRAPH_FILE [options]; try --help" : (usage + "\n(try --help)").c_str());
    return 2;
  } catch (const std::bad_alloc&) {
    std::fflush(stdout);
    std::fprintf(stderr, "%s: error: out of memory\n", prog);
    return 3;
  } catch (const std::exception& error) {
    std::fflush(stdout);
    std::fprintf(stderr, "%s: error: %s\n", prog, error.what());
    return 3;
  }
}

}  // namespace starc

#endif  // STARC_RUNTIME_HPP
