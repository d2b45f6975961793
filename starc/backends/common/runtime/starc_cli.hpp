// starc runtime: the command line of generated programs.
//
//   ./prog GRAPH_FILE [--undirected] [--name value ...] [--out FILE] [--time] [--trials N] [--help]
//
// The help lists exactly what the parser accepts: the common options, the declared parameters
// and the program's own flags (`backend_flags`: --device, --block-size, --degree-order, --stats),
// each with its metavar and a line of help from the backend that reads it.
//
// Declared parameters (ParamSpec) are validated when the command line is parsed; an optional
// one (required = false, e.g. randSP's --seed) reads as its `fallback` text when not given.
// The backend flags (`backend_flags`, and --device and --block-size always, so that a backend
// that takes neither refuses them with its own reason) are kept in `extra` as "--name",
// "value" pairs for get_extra. Any other option is a UsageError: names
// match exactly, so a misspelt parameter never leaves its value at a default. Option values
// may be written "--name value" or "--name=value". --max-vertices N lowers the vertex limit
// of read_graph; --out FILE is checked at once (its directory exists, it is not a directory);
// --trials N runs the timed algorithm N times in the process, as GAPBS's -n does (a declared
// parameter named trials keeps the name).
// Every problem is a UsageError naming the option.
#ifndef STARC_CLI_HPP
#define STARC_CLI_HPP

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include <sys/stat.h>

#include "starc_entry.hpp"
#include "starc_graph.hpp"

namespace starc {

/// A bad command line; guarded_main prints it with a usage hint and exits with status 2.
struct UsageError : std::runtime_error {
  using runtime_error::runtime_error;
};

/// Results that could not be written at the end (a full disk, a device error: --out or
/// stdout); guarded_main prints it without a usage hint and exits with status 2, as for an
/// --out path that cannot be opened.
struct OutputError : std::runtime_error {
  using runtime_error::runtime_error;
};

enum class ParamKind { Int, Long, Float, Double, Bool, Node, NodeSet, File };

/// A program's own option (not a DSL parameter): its name, its value's metavar ("" for a
/// flag that takes none) and its help line.
struct FlagSpec {
  const char* name;
  const char* metavar;
  const char* help;
};

struct ParamSpec {
  const char* name;
  ParamKind kind;
  bool required;
  const char* fallback = nullptr;   // an optional parameter's value when it is not given
};

namespace detail {

/// The usage synopsis of the running program, set by CommandLine for guarded_main's hint.
inline std::string& usage_line() {
  static std::string line;
  return line;
}

inline const char* kind_description(ParamKind kind) {
  switch (kind) {
    case ParamKind::Int: return "an integer (32-bit)";
    case ParamKind::Long: return "an integer (64-bit)";
    case ParamKind::Float:
    case ParamKind::Double: return "a number";
    case ParamKind::Bool: return "a boolean (0, 1, true or false)";
    case ParamKind::Node: return "a node id (a non-negative integer)";
    case ParamKind::NodeSet: return "a comma-separated list of node ids, e.g. 0,5,9";
    case ParamKind::File: return "a file name";
  }
  return "a value";
}

inline const char* kind_metavar(ParamKind kind) {
  switch (kind) {
    case ParamKind::Int:
    case ParamKind::Long: return "INT";
    case ParamKind::Float:
    case ParamKind::Double: return "NUMBER";
    case ParamKind::Bool: return "0|1";
    case ParamKind::Node: return "NODE";
    case ParamKind::NodeSet: return "NODE,NODE,...";
    case ParamKind::File: return "FILE";
  }
  return "VALUE";
}

/// Parses all of `text` as a decimal integer; false on junk, empty text or overflow.
inline bool parse_full_integer(const std::string& text, long long& out) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) return false;
  char* stop = nullptr;
  errno = 0;
  out = std::strtoll(text.c_str(), &stop, 10);
  return errno == 0 && *stop == '\0';
}

inline bool parse_full_double(const std::string& text, double& out) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) return false;
  char* stop = nullptr;
  out = std::strtod(text.c_str(), &stop);
  return *stop == '\0';
}

inline bool parse_node_id(const std::string& text, long long& out) {
  if (text.empty() || text[0] < '0' || text[0] > '9') return false;  // no sign, no blanks
  return parse_full_integer(text, out);
}

inline bool parse_node_list(const std::string& text, std::vector<long long>& out) {
  out.clear();
  if (text.empty()) return true;  // the empty set
  size_t start = 0;
  for (;;) {
    size_t comma = text.find(',', start);
    long long id = 0;
    if (!parse_node_id(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start), id))
      return false;
    out.push_back(id);
    if (comma == std::string::npos) return true;
    start = comma + 1;
  }
}

inline bool parse_bool(const std::string& text, bool& out) {
  if (text == "1" || text == "true") {
    out = true;
    return true;
  }
  if (text == "0" || text == "false") {
    out = false;
    return true;
  }
  return false;
}

}  // namespace detail

class CommandLine {
 public:
  /// Parses and checks the command line (see the top of this file); --help prints the help
  /// and exits.
  CommandLine(int argc, char** argv, std::vector<ParamSpec> params, const char* function_name,
              std::vector<FlagSpec> backend_flags = {});

  std::string graph_path;
  bool undirected = false;
  bool time = false;
  int trials = 1;                   // --trials N: the timed span runs N times, results of the last
  std::string out_path;             // "" = stdout
  std::vector<std::string> extra;   // unknown "--name", "value" pairs, in order

  bool has(const char* name) const {
    int index = find(name);
    return index >= 0 && given_[static_cast<size_t>(index)];
  }

  long long get_int(const char* name) const {
    long long v = 0;
    detail::parse_full_integer(value_of(name), v);
    return v;
  }

  double get_double(const char* name) const {
    double v = 0;
    detail::parse_full_double(value_of(name), v);
    return v;
  }

  bool get_bool(const char* name) const {
    bool v = false;
    detail::parse_bool(value_of(name), v);
    return v;
  }

  /// The text of --name (a ParamKind::File: the file is read by its user).
  const std::string& get_text(const char* name) const { return value_of(name); }

  /// The node id of --name, checked against the graph (0 <= id < num_nodes).
  int get_node(const char* name, const Graph& g) const {
    long long id = 0;
    detail::parse_node_id(value_of(name), id);
    check_node(name, id, g);
    return static_cast<int>(id);
  }

  /// The node ids of --name ("0,5,9"; "" is the empty set), each checked against the graph
  /// and refused when repeated (a set: bc would count a repeated source twice).
  std::vector<int> get_node_set(const char* name, const Graph& g) const {
    std::vector<long long> ids;
    detail::parse_node_list(value_of(name), ids);
    std::vector<int> nodes;
    nodes.reserve(ids.size());
    for (long long id : ids) {
      check_node(name, id, g, true);
      nodes.push_back(static_cast<int>(id));
    }
    std::vector<int> sorted = nodes;
    std::sort(sorted.begin(), sorted.end());
    auto repeat = std::adjacent_find(sorted.begin(), sorted.end());
    if (repeat != sorted.end())
      throw UsageError(std::string("--") + name + " expects " + detail::kind_description(ParamKind::NodeSet) +
                       ", got '" + value_of(name) + "' (" + std::to_string(*repeat) + " is given twice)");
    return nodes;
  }

  /// The first of the device flags (--device, --block-size) given, "" if none: backends that
  /// take neither refuse it; a program's own flags (--degree-order) are also kept in `extra`.
  std::string first_device_flag() const {
    for (size_t k = 0; k + 1 < extra.size(); k += 2)
      if (extra[k] == "--device" || extra[k] == "--block-size") return extra[k];
    return "";
  }

  /// The value of a backend flag kept in `extra` (the last one given), or `fallback`.
  std::string get_extra(const char* name, const std::string& fallback) const {
    std::string flag = std::string("--") + name;
    std::string found = fallback;
    for (size_t k = 0; k + 1 < extra.size(); k += 2)
      if (extra[k] == flag) found = extra[k + 1];
    return found;
  }

  const std::string& program() const { return program_; }

 private:
  std::vector<ParamSpec> params_;
  std::vector<FlagSpec> flags_;
  std::vector<std::string> values_;
  std::vector<bool> given_;
  std::string program_;

  int find(const char* name) const {
    for (size_t k = 0; k < params_.size(); ++k)
      if (std::strcmp(params_[k].name, name) == 0) return static_cast<int>(k);
    return -1;
  }

  /// A --out path that cannot be written is a usage error, known before the run.
  static void check_output_file(const std::string& path) {
    struct stat info;
    if (::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode))
      throw UsageError("cannot write '" + path + "': it is a directory");
    size_t slash = path.find_last_of('/');
    std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
    if (::stat(dir.c_str(), &info) != 0)
      throw UsageError("cannot write '" + path + "': directory '" + dir + "' does not exist");
    if (!S_ISDIR(info.st_mode)) throw UsageError("cannot write '" + path + "': '" + dir + "' is not a directory");
  }

  const std::string& value_of(const char* name) const {
    int index = find(name);
    if (index < 0) throw std::logic_error(std::string("starc runtime: parameter '") + name + "' was not declared");
    if (!given_[static_cast<size_t>(index)] && params_[static_cast<size_t>(index)].fallback == nullptr)
      throw UsageError(std::string("missing option --") + name + " (" +
                       detail::kind_description(params_[static_cast<size_t>(index)].kind) + ")");
    return values_[static_cast<size_t>(index)];
  }

  /// In the reference's words (starc/runcontract.py), for an id and for an item of a set.
  void check_node(const char* name, long long id, const Graph& g, bool in_set = false) const {
    if (g.num_nodes == 0)
      throw UsageError(std::string("--") + name + " " + std::to_string(id) + ": " + g.path +
                       " has no vertices, so no node id is valid");
    if (id >= 0 && id < g.num_nodes) return;
    const std::string vertices = g.path + " has " + std::to_string(g.num_nodes) + " vertices";
    const std::string given = "got '" + value_of(name) + "'";
    if (in_set)
      throw UsageError(std::string("--") + name + " expects " + detail::kind_description(ParamKind::NodeSet) +
                       ", " + given + " (" + std::to_string(id) + " is out of range: " + vertices + ")");
    throw UsageError(std::string("--") + name + " expects a node id (0.." +
                     std::to_string(static_cast<long long>(g.num_nodes) - 1) + "), " + given + " (" + vertices + ")");
  }

  static void validate(const ParamSpec& spec, const std::string& value) {
    bool ok = false;
    long long integer = 0;
    double real = 0;
    bool flag = false;
    std::vector<long long> ids;
    switch (spec.kind) {
      case ParamKind::Int: ok = detail::parse_full_integer(value, integer) && integer >= INT_MIN && integer <= INT_MAX; break;
      case ParamKind::Long: ok = detail::parse_full_integer(value, integer); break;
      case ParamKind::Float:
      case ParamKind::Double: ok = detail::parse_full_double(value, real); break;
      case ParamKind::Bool: ok = detail::parse_bool(value, flag); break;
      case ParamKind::Node: ok = detail::parse_node_id(value, integer) && integer <= INT_MAX; break;
      case ParamKind::NodeSet: ok = detail::parse_node_list(value, ids); break;
      case ParamKind::File: ok = !value.empty(); break;
    }
    if (!ok)
      throw UsageError(std::string("--") + spec.name + " expects " + detail::kind_description(spec.kind) +
                       ", got '" + value + "'");
  }

  std::string synopsis() const {
    std::string line = "usage: " + program_ + " GRAPH_FILE [--undirected]";
    for (const ParamSpec& p : params_) {
      std::string item = std::string("--") + p.name + " " + detail::kind_metavar(p.kind);
      line += p.required ? " " + item : " [" + item + "]";
    }
    for (const FlagSpec& f : flags_) line += std::string(" [--") + f.name + (*f.metavar ? " " : "") + f.metavar + "]";
    return line + " [--out FILE] [--time] [--trials N] [--max-vertices N] [--help]";
  }

  /// One option line of the help; a long option gets its help on the next line.
  static void print_option(const std::string& item, const std::string& help) {
    if (item.size() > 24) std::printf("  %s\n  %-24s %s\n", item.c_str(), "", help.c_str());
    else std::printf("  %-24s %s\n", item.c_str(), help.c_str());
  }

  void print_help(const char* function_name) const {
    std::printf("%s\n\nRuns %s, generated by starc, on the graph in GRAPH_FILE: an edge list\n"
                "'src dst [weight]' with 0-based ids, Matrix Market (.mtx) or starc's binary CSR\n"
                "(.sg, see `starc graph convert`).\n\noptions:\n",
                synopsis().c_str(), function_name);
    std::printf("  %-24s %s\n", "--undirected", "add v->u for every edge u->v");
    for (const ParamSpec& p : params_) {
      std::string item = std::string("--") + p.name + " " + detail::kind_metavar(p.kind);
      std::string note = p.required ? " (required)" : p.fallback != nullptr ? std::string(" (default ") + p.fallback + ")" : "";
      print_option(item, detail::kind_description(p.kind) + note);
    }
    for (const FlagSpec& f : flags_) {
      std::string item = std::string("--") + f.name + (*f.metavar ? " " : "") + f.metavar;
      print_option(item, f.help);
    }
    std::printf("  %-24s %s\n", "--out FILE", "write the results to FILE instead of stdout");
    std::printf("  %-24s %s\n", "--time", "print 'starc-time <seconds>' for the algorithm on stderr");
    std::printf("  %-24s %s\n", "--trials N", "run the algorithm N times (one starc-time line each), print the last results");
    std::printf("  %-24s %s\n", "--max-vertices N", "refuse graphs with more than N vertices (default 2^31-1)");
    std::printf("  %-24s %s\n", "--help, -h", "show this help");
  }
};

#if STARC_DEFINE_ENTRIES
STARC_ENTRY CommandLine::CommandLine(int argc, char** argv, std::vector<ParamSpec> params,
                                     const char* function_name, std::vector<FlagSpec> backend_flags)
    : params_(std::move(params)), flags_(std::move(backend_flags)), values_(params_.size()), given_(params_.size(), false) {
  for (size_t k = 0; k < params_.size(); ++k)
    if (params_[k].fallback != nullptr) values_[k] = params_[k].fallback;
  std::vector<std::string> kept = {"device", "block-size"};
  for (const FlagSpec& f : flags_) kept.push_back(f.name);
  program_ = argc > 0 && argv[0] ? argv[0] : "prog";
  size_t slash = program_.find_last_of('/');
  if (slash != std::string::npos) program_ = program_.substr(slash + 1);
  detail::usage_line() = synopsis();
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      print_help(function_name);
      std::exit(0);
    }
    if (arg.size() < 3 || arg.compare(0, 2, "--") != 0) {
      if (!arg.empty() && arg[0] == '-' && arg != "-") throw UsageError("unknown option '" + arg + "'");
      if (!graph_path.empty()) throw UsageError("unexpected argument '" + arg + "' (the graph file is '" + graph_path + "')");
      graph_path = arg;
      continue;
    }
    std::string name = arg.substr(2), value;
    bool inline_value = false;
    size_t equals = name.find('=');
    if (equals != std::string::npos) {
      value = name.substr(equals + 1);
      name = name.substr(0, equals);
      inline_value = true;
    }
    if (name == "undirected" || name == "time") {
      if (inline_value) throw UsageError("--" + name + " takes no value");
      (name == "time" ? time : undirected) = true;
      continue;
    }
    auto flag = std::find_if(flags_.begin(), flags_.end(), [&](const FlagSpec& f) { return name == f.name; });
    if (flag != flags_.end() && *flag->metavar == '\0') {  // a flag without a value (--stats)
      if (inline_value) throw UsageError("--" + name + " takes no value");
      extra.push_back("--" + name);
      extra.push_back("");
      continue;
    }
    bool has_next = i + 1 < argc;
    int index = find(name.c_str());
    if (!inline_value) {
      // A declared parameter takes the next word even when it looks like "-1".
      bool next_is_value = has_next && (index >= 0 || name == "out" || std::strncmp(argv[i + 1], "--", 2) != 0);
      if (!next_is_value) {
        if (index >= 0) throw UsageError("--" + name + " needs a value (" + detail::kind_description(params_[static_cast<size_t>(index)].kind) + ")");
        throw UsageError("--" + name + " needs a value");
      }
      value = argv[++i];
    }
    if (name == "out") {
      if (value.empty()) throw UsageError("--out needs a file name");
      check_output_file(value);
      out_path = value;
    } else if (name == "trials" && index < 0) {
      long long count = 0;
      if (!detail::parse_full_integer(value, count) || count < 1 || count > INT_MAX)
        throw UsageError("--trials expects an integer 1.." + std::to_string(INT_MAX) + ", got '" + value + "'");
      trials = static_cast<int>(count);
    } else if (name == "max-vertices") {
      long long limit = 0;
      if (!detail::parse_full_integer(value, limit) || limit < 1 || limit > INT_MAX)
        throw UsageError("--max-vertices expects an integer 1.." + std::to_string(INT_MAX) + ", got '" + value + "'");
      detail::vertex_limit() = limit;
    } else if (index >= 0) {
      // which value would the algorithm use? `starc run` refuses it alike (starc/runner.py)
      if (given_[static_cast<size_t>(index)]) throw UsageError("--" + name + " given twice");
      validate(params_[static_cast<size_t>(index)], value);
      values_[static_cast<size_t>(index)] = value;
      given_[static_cast<size_t>(index)] = true;
    } else if (std::find(kept.begin(), kept.end(), name) != kept.end()) {
      extra.push_back("--" + name);
      extra.push_back(value);
    } else {
      std::string known;
      for (const ParamSpec& p : params_) known += std::string(known.empty() ? "" : ", ") + "--" + p.name;
      throw UsageError("unknown option '--" + name + "' (" + function_name + " takes: " +
                       (known.empty() ? std::string("no parameters") : known) + ")");
    }
  }
  if (graph_path.empty()) throw UsageError("missing GRAPH_FILE");
  for (size_t k = 0; k < params_.size(); ++k)
    if (params_[k].required && !given_[k])
      throw UsageError(std::string("missing required option --") + params_[k].name + " (" +
                       detail::kind_description(params_[k].kind) + ")");
}
#endif

}  // namespace starc

#endif  // STARC_CLI_HPP
