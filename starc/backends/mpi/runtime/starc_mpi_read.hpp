// starc MPI runtime: every rank reads its own byte range of the graph file (no rank reads it all).
//
// Included by starc_mpi.hpp. read_local() gives each rank the edges of the lines that start in
// its share of the file, parsed by the shared parsers of starc_graph.hpp (starc::detail) with
// their global line numbers, so a bad file gives exactly the message starc::read_graph gives:
// the first error in file order, agreed by all ranks and raised on every rank alike.
//
// Two passes over the rank's range: the first counts lines, data lines and the first data
// line's columns (cheap), an exchange turns them into global line and entry numbers, then the
// second parses. Matrix Market: every rank reads the banner and size line; the entries after
// them are split. A file that cannot be split by bytes (a pipe, a device) is read by rank 0.
#ifndef STARC_MPI_READ_HPP
#define STARC_MPI_READ_HPP

#include "starc_mpi_exchange.hpp"  // first: it includes <mpi.h> without the C++ bindings

#include <sys/stat.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "starc_runtime.hpp"

namespace starc_mpi {
namespace detail {

/// One edge on its way to its owner. `key` orders edges with equal (src, dst) as read_graph
/// does (file order, then the mirrors), or holds a global edge id once the CSR is built.
struct Edge {
  int src, dst;
  long long key;
  double weight;
};

/// The edges one rank read, with the graph-wide facts every rank agrees on.
struct LocalEdges {
  long long num_nodes = 0;
  long long originals = 0;        // edges in the file, all ranks together
  long long first_original = 0;   // global index of this rank's first edge
  std::vector<int> src, dst;
  std::vector<double> weights;
  bool has_weights = false, weights_integral = true, symmetric = false;
  bool undirected_applied = false;  // a .sg file written symmetrised: --undirected adds nothing
};

/// Raises on every rank the first error in file order that any rank met: ranks hold
/// consecutive parts of the file, so that is the lowest-numbered rank's (each stops at its
/// first). Collective; `error` is empty where a rank met none.
inline void agree(MPI_Comm comm, const std::string& error) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  int mine = error.empty() ? INT_MAX : rank, first = INT_MAX;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == INT_MAX) return;
  int length = rank == first ? static_cast<int>(error.size()) : 0;
  MPI_Bcast(&length, 1, MPI_INT, first, comm);
  std::string message = rank == first ? error : std::string(static_cast<size_t>(length), ' ');
  MPI_Bcast(&message[0], length, MPI_CHAR, first, comm);
  throw starc::InputError(message);
}

struct File {
  std::FILE* f = nullptr;
  ~File() {
    if (f) std::fclose(f);
  }
};

constexpr long long kEndOfFile = LLONG_MAX;

/// Calls fn(number, begin, end) for each line whose first byte lies in [begin, end) of the
/// file, numbered from first_number + 1, until fn returns false; a line starts at
/// `range_start` or after a newline. As in starc::detail::for_each_line, each line is followed
/// by a '\n' in memory and a line still growing past 1 MiB is an InputError. Returns the file
/// offset after the last line handed over.
template <class Fn>
long long scan_lines(std::FILE* f, const std::string& path, long long range_start, long long begin,
                     long long end, long first_number, Fn&& fn) {
  if (begin >= end) return begin;
  std::vector<char> block(size_t(1) << 20), pending;
  long long line_start = begin;
  if (begin > range_start) {  // skip the line that began in the previous rank's range
    if (fseeko(f, static_cast<off_t>(begin - 1), SEEK_SET) != 0) return begin;
    line_start = begin - 1;
    for (bool found = false; !found;) {
      size_t got = std::fread(block.data(), 1, block.size(), f);
      if (got == 0) return line_start;
      const char* nl = static_cast<const char*>(std::memchr(block.data(), '\n', got));
      found = nl != nullptr;
      line_start += found ? nl - block.data() + 1 : static_cast<long long>(got);
    }
  }
  if (line_start >= end || fseeko(f, static_cast<off_t>(line_start), SEEK_SET) != 0) return line_start;
  long number = first_number;
  for (;;) {
    size_t got = std::fread(block.data(), 1, block.size(), f);
    if (got == 0) {
      if (std::ferror(f)) starc::detail::input_error(path, 0, std::string("cannot read: ") + std::strerror(errno));
      break;
    }
    const char* p = block.data();
    const char* stop = p + got;
    for (;;) {
      const char* nl = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(stop - p)));
      if (!nl) {
        pending.insert(pending.end(), p, stop);
        if (pending.size() > starc::detail::kMaxLineBytes)
          starc::detail::input_error(path, number + 1, "line is longer than 1 MiB; is this a text graph file?");
        break;
      }
      const char* line = p;
      if (!pending.empty()) {
        pending.insert(pending.end(), p, nl + 1);
        line = pending.data();
      }
      size_t length = pending.empty() ? static_cast<size_t>(nl - p) : pending.size() - 1;
      bool more = fn(++number, line, line + length);
      line_start += static_cast<long long>(length) + 1;
      pending.clear();
      p = nl + 1;
      if (!more || line_start >= end) return line_start;
    }
  }
  if (!pending.empty()) {  // the last line has no newline
    pending.push_back('\n');
    fn(++number, pending.data(), pending.data() + pending.size() - 1);
    line_start += static_cast<long long>(pending.size()) - 1;
  }
  return line_start;
}

inline bool is_data_line(const char* b, const char* e) {
  while (b < e && starc::detail::is_blank(*b)) ++b;
  return b < e && *b != '#' && *b != '%';
}

/// What the first pass learns about one rank's range.
struct RangeCounts {
  long long lines = 0, data_lines = 0, first_data_line = 0, first_columns = 0;
};

/// Opens the file and refuses a zip archive, as starc::read_graph does; returns the file size,
/// or kEndOfFile when it cannot be split by bytes.
inline long long open_graph(File& file, const std::string& path) {
  file.f = starc::detail::open_input(path);
  char magic[4] = {0, 0, 0, 0};
  size_t got = std::fread(magic, 1, 4, file.f);
  if (got == 4 && std::memcmp(magic, "PK\x03\x04", 4) == 0)
    starc::detail::input_error(path, 0,
                               "this is a zip archive (an .npz graph?); convert it first: `starc graph convert g.npz g.sg`");
  if (got == 4 && std::memcmp(magic, "STAR", 4) == 0) {  // as starc::read_graph, on the whole magic
    char rest[4] = {0, 0, 0, 0};
    if (std::fread(rest, 1, 4, file.f) == 4 && std::memcmp(rest, "C-SG", 4) == 0)
      starc::detail::input_error(path, 0, "this is a starc binary graph; name it with the .sg extension");
  }
  struct stat info;
  if (fstat(fileno(file.f), &info) != 0 || !S_ISREG(info.st_mode)) return kEndOfFile;
  return static_cast<long long>(info.st_size);
}

/// A .sg file: every rank reads the header and the offsets (n + 1 ints) and its own slice of
/// the forward CSR's edges, in CSR order (which sorts as the file order would: duplicates keep
/// it); rank 0 checks the checksum streaming. The reverse CSR in the file is not read (MPI
/// builds its own), so only a file crafted with a right checksum can get past this reader
/// with a damaged reverse CSR that starc::read_graph would refuse.
inline LocalEdges read_local_binary(const std::string& path, bool undirected, MPI_Comm comm) {
  namespace sd = starc::detail;
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  std::string error;
  LocalEdges local;
  File file;
  sd::SgHeader h;
  try {
    file.f = sd::open_input(path);
    h = sd::read_sg_header(file.f, path, undirected);
    if (rank == 0) sd::check_sg_checksum(file.f, path, h);
  } catch (const starc::InputError& e) {
    error = e.what();
  }
  agree(comm, error);
  long long m = static_cast<long long>(h.m);
  long long begin = m * rank / ranks, end = m * (rank + 1) / ranks;
  size_t count = static_cast<size_t>(end - begin);
  try {
    std::vector<int> offsets;
    uint32_t unused = 1;
    fseeko(file.f, 64, SEEK_SET);
    sd::read_section(file.f, path, offsets, h.n + 1, unused, h.size);
    sd::check_offsets(path, offsets, static_cast<int>(m), "offsets");
    fseeko(file.f, static_cast<off_t>(h.targets_at() + 4 * begin), SEEK_SET);
    sd::read_section(file.f, path, local.dst, count, unused, h.size);
    sd::check_ids(path, local.dst, static_cast<int>(h.n), "targets");
    if (h.weighted()) {
      fseeko(file.f, static_cast<off_t>(h.weights_at() + 8 * begin), SEEK_SET);
      sd::read_section(file.f, path, local.weights, count, unused, h.size);
      for (double w : local.weights)
        if (!std::isfinite(w)) sd::input_error(path, 0, "weights: a weight is not finite");
    }
    local.src.resize(count);
    size_t v = static_cast<size_t>(std::upper_bound(offsets.begin(), offsets.end(), static_cast<int>(begin)) - offsets.begin()) - 1;
    for (size_t k = 0; k < count; ++k) {
      while (offsets[v + 1] <= begin + static_cast<long long>(k)) ++v;
      local.src[k] = static_cast<int>(v);
    }
  } catch (const starc::InputError& e) {
    error = e.what();
  }
  agree(comm, error);
  local.num_nodes = static_cast<long long>(h.n);
  local.originals = m;
  local.first_original = begin;
  local.has_weights = h.weighted();
  local.weights_integral = !h.weighted() || h.integral();
  local.undirected_applied = h.undirected_applied();
  return local;
}

/// Reads this rank's share of `path` (collective). Every InputError is agreed and raised on
/// every rank; the size checks of starc::read_graph run on the global counts.
inline LocalEdges read_local(const std::string& path, bool undirected, MPI_Comm comm) {
  namespace sd = starc::detail;
  int rank = 0, ranks = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &ranks);
  if (sd::has_extension(path, ".npz")) starc::read_graph(path, undirected);  // throws its message
  if (sd::has_extension(path, ".sg")) return read_local_binary(path, undirected, comm);
  bool matrix_market = sd::has_extension(path, ".mtx");
  std::string error;
  File file;
  long long size = 0, data_begin = 0;
  long header_lines = 0;
  sd::MatrixMarketParser header{path, {}};
  try {
    size = open_graph(file, path);
    if (matrix_market) {  // every rank reads the banner and the size line
      data_begin = scan_lines(file.f, path, 0, 0, kEndOfFile, 0, [&](long number, const char* b, const char* e) {
        header.line(number, b, e);
        header_lines = number;
        return header.rows < 0;
      });
      if (header.rows < 0) header.finish();  // the banner or missing-size-line error
      header.edges = sd::EdgeList();         // drop what the size line reserved
      header.edges.num_nodes = header.rows;
    }
  } catch (const starc::InputError& e) {
    error = e.what();
  }
  agree(comm, error);

  long long begin = rank == 0 ? data_begin : kEndOfFile, end = kEndOfFile;  // not splittable: rank 0 reads
  if (size != kEndOfFile) {
    // long double: span * rank must not overflow, and the shares must add up exactly.
    long double span = static_cast<long double>(size - data_begin);
    begin = data_begin + static_cast<long long>(span * rank / ranks);
    end = rank == ranks - 1 ? size : data_begin + static_cast<long long>(span * (rank + 1) / ranks);
  }

  RangeCounts counts;
  try {  // an error here stops the count; the second pass meets it again and reports it
    scan_lines(file.f, path, data_begin, begin, end, 0, [&](long number, const char* b, const char* e) {
      counts.lines = number;
      if (!is_data_line(b, e)) return true;
      if (++counts.data_lines == 1) {
        const char* bs[4];
        const char* es[4];
        counts.first_data_line = number;
        counts.first_columns = sd::split_tokens(b, e, bs, es, 4);
      }
      return true;
    });
  } catch (const starc::InputError&) {
  }
  std::vector<RangeCounts> all(static_cast<size_t>(ranks));
  MPI_Allgather(&counts, 4, MPI_LONG_LONG, all.data(), 4, MPI_LONG_LONG, comm);
  long line_base = header_lines;
  long long data_base = 0, first_data_line = 0, first_columns = 0;
  for (int r = 0; r < ranks; ++r) {
    const RangeCounts& c = all[static_cast<size_t>(r)];
    if (first_data_line == 0 && c.data_lines > 0) {
      first_data_line = line_base + c.first_data_line;
      first_columns = c.first_columns;
    }
    if (r < rank) {
      line_base += static_cast<long>(c.lines);
      data_base += c.data_lines;
    }
  }

  LocalEdges local;
  local.first_original = data_base;
  try {
    if (matrix_market) {
      sd::MatrixMarketParser parser = header;
      parser.seen = data_base;  // "more entries than declared" counts from the file's start
      scan_lines(file.f, path, data_begin, begin, end, line_base, [&](long number, const char* b, const char* e) {
        parser.line(number, b, e);
        return true;
      });
      local.src = std::move(parser.edges.src);
      local.dst = std::move(parser.edges.dst);
      local.weights = std::move(parser.edges.weights);
      local.has_weights = !parser.pattern;
      local.weights_integral = parser.edges.weights_integral;
      local.symmetric = parser.symmetric;
    } else {
      sd::EdgeListParser parser{path, {}};
      if (first_columns == 2 || first_columns == 3) {  // weights on every line or on none
        parser.first_data_line = static_cast<long>(first_data_line);
        parser.edges.has_weights = first_columns == 3;
      }
      scan_lines(file.f, path, data_begin, begin, end, line_base, [&](long number, const char* b, const char* e) {
        parser.line(number, b, e);
        return true;
      });
      local.num_nodes = parser.max_id + 1;
      local.src = std::move(parser.edges.src);
      local.dst = std::move(parser.edges.dst);
      local.weights = std::move(parser.edges.weights);
      local.has_weights = first_columns == 3;
      local.weights_integral = parser.edges.weights_integral;
    }
  } catch (const starc::InputError& e) {
    error = e.what();
  }
  agree(comm, error);

  long long count = static_cast<long long>(local.src.size());
  MPI_Allreduce(&count, &local.originals, 1, MPI_LONG_LONG, MPI_SUM, comm);
  int integral = local.weights_integral ? 1 : 0, all_integral = 1;
  MPI_Allreduce(&integral, &all_integral, 1, MPI_INT, MPI_LAND, comm);
  local.weights_integral = !local.has_weights || all_integral != 0;
  if (matrix_market) {  // the end-of-file checks of the parser, on the global entry count
    sd::MatrixMarketParser whole = header;
    whole.symmetric = false;
    whole.seen = local.originals;
    whole.finish();
    local.num_nodes = header.rows;
  } else {
    long long largest = local.num_nodes;
    MPI_Allreduce(&largest, &local.num_nodes, 1, MPI_LONG_LONG, MPI_MAX, comm);
    sd::check_graph_size(path, 0, local.num_nodes, local.originals);
  }
  return local;
}

}  // namespace detail
}  // namespace starc_mpi

#endif  // STARC_MPI_READ_HPP
