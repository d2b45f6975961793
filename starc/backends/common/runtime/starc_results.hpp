// starc runtime: the shared results format, identical for every backend so outputs diff.
//
//   # starc results: <function> backend=<backend> graph=<graph file>
//   <property> <vertex> <value>     one line per vertex for each property, ascending ids
//   return <value>                  when the function returns a value
//
// Integers print exactly, float with %.9g, double with %.17g, booleans as 1/0; NaN prints
// "nan" whatever its sign bit, as Python's '%g' does.
#ifndef STARC_RESULTS_HPP
#define STARC_RESULTS_HPP

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

#include <sys/stat.h>

#include "starc_cli.hpp"

namespace starc {

class Results {
 public:
  /// Opens --out (or stdout) and writes the header line. --out is written under a temporary
  /// name and renamed by close(): a failed run leaves no half-written results file.
  Results(const CommandLine& cl, const char* function_name, const char* backend) : path_(cl.out_path) {
    struct stat info;
    if (path_.empty()) {
      file_ = stdout;
    } else if (::stat(path_.c_str(), &info) == 0 && !S_ISREG(info.st_mode)) {
      // A device or FIFO (/dev/null, /dev/stdout): written in place; a rename would replace it.
      file_ = std::fopen(path_.c_str(), "w");
      if (!file_) throw UsageError("cannot write '" + path_ + "': " + std::strerror(errno));
    } else {
      temp_ = path_ + ".starc-tmp";
      file_ = std::fopen(temp_.c_str(), "w");
      if (!file_) throw UsageError("cannot write '" + path_ + "': " + std::strerror(errno));
    }
    std::fprintf(file_, "# starc results: %s backend=%s graph=%s\n", function_name, backend, cl.graph_path.c_str());
  }

  Results(const Results&) = delete;
  Results& operator=(const Results&) = delete;

  // One line per vertex, ids from `first` (a part of the vertices: MPI streams each rank's).

  void prop(const char* name, const int* v, int n, int first = 0) {
    for (int i = 0; i < n; ++i) std::fprintf(file_, "%s %d %d\n", name, first + i, v[i]);
  }
  void prop(const char* name, const long long* v, int n, int first = 0) {
    for (int i = 0; i < n; ++i) std::fprintf(file_, "%s %d %lld\n", name, first + i, v[i]);
  }
  void prop(const char* name, const float* v, int n, int first = 0) {
    for (int i = 0; i < n; ++i) std::fprintf(file_, "%s %d %s\n", name, first + i, format(v[i], 9).c_str());
  }
  void prop(const char* name, const double* v, int n, int first = 0) {
    for (int i = 0; i < n; ++i) std::fprintf(file_, "%s %d %s\n", name, first + i, format(v[i], 17).c_str());
  }
  void prop(const char* name, const bool* v, int n, int first = 0) {
    for (int i = 0; i < n; ++i) std::fprintf(file_, "%s %d %d\n", name, first + i, v[i] ? 1 : 0);
  }
  void prop(const char* name, const unsigned char* v, int n, int first = 0) {  // bool arrays stored as bytes
    for (int i = 0; i < n; ++i) std::fprintf(file_, "%s %d %d\n", name, first + i, v[i] ? 1 : 0);
  }

  void ret(long long v) { std::fprintf(file_, "return %lld\n", v); }
  void ret(int v) { std::fprintf(file_, "return %d\n", v); }
  void ret(float v) { std::fprintf(file_, "return %s\n", format(v, 9).c_str()); }
  void ret(double v) { std::fprintf(file_, "return %s\n", format(v, 17).c_str()); }
  void ret(bool v) { std::fprintf(file_, "return %d\n", v ? 1 : 0); }

  /// Flushes (and closes --out); throws OutputError, with the system's reason, when the
  /// results could not be written.
  void close() {
    if (!file_) return;
    int reason = 0;  // the first failure's errno
    auto check = [&reason](bool failed) {
      if (failed && reason == 0) reason = errno != 0 ? errno : EIO;
    };
    errno = 0;
    check(std::fflush(file_) != 0 || std::ferror(file_) != 0);
    if (file_ != stdout) check(std::fclose(file_) != 0);
    file_ = nullptr;
    if (!temp_.empty() && reason == 0) check(std::rename(temp_.c_str(), path_.c_str()) != 0);
    if (reason != 0) {
      if (!temp_.empty()) std::remove(temp_.c_str());
      throw OutputError("cannot write results to " + (path_.empty() ? std::string("stdout") : path_) + ": " +
                        std::strerror(reason));
    }
  }

  /// Without close() (an exception on the way) the results are incomplete: discard them.
  ~Results() {
    if (!file_) return;
    if (file_ == stdout) {
      std::fflush(stdout);
    } else {
      std::fclose(file_);
      std::remove(temp_.c_str());
    }
  }

 private:
  std::FILE* file_ = nullptr;
  std::string path_;
  std::string temp_;  // --out is written here, then renamed

  static std::string format(double v, int digits) {
    if (std::isnan(v)) return "nan";
    char buffer[40];
    std::snprintf(buffer, sizeof buffer, "%.*g", digits, v);
    return buffer;
  }
};

}  // namespace starc

#endif  // STARC_RESULTS_HPP
