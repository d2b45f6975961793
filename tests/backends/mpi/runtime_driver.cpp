// Test driver for the MPI runtime (starc_mpi.hpp); used by test_runtime.py.
//
//   mpirun -np N runtime_driver dump GRAPH --out PREFIX [--undirected] [--reverse 1] [--ghostRows 1]
//                                [--ghostRowSlices 1] [--appendedGhosts 1] [--order K] [--stats]
//       every rank writes its Distribution to PREFIX.<rank>, one "name values..." line each
//       (local ids as the rank holds them; `mirrors` as global ids); with --order K, after K
//       calls of order_by_degree (DegreeOrderMode::Always), and a line "ordered 0|1"; with
//       --updates FILE --batchSize B, after apply_updates of each batch's deletions, then its
//       additions, and a line "in_place K": how many of those parts were applied in place
//       ("grew K": how many inserted new ghosts);
//       "carried 1" when a per-vertex array (3 * global id + 1, carried by carry_local after
//       each part) holds that value at every owned vertex and ghost, "indexed 1" when the
//       ghost runs and mirror indexes built before the updates are current after them, and
//       the peers' ranks
//   mpirun -np N runtime_driver values GRAPH [--stats] [--out FILE]
//       the results of the property v * 3 + 1 (owners' values, streamed to rank 0), then rank 0
//       prints read_node of every vertex
//   runtime_driver read GRAPH [--undirected]     the sequential reader (starc::read_graph), no MPI
//   runtime_driver encoding X...      for each integer X, "varint X: its bytes (hex) | decoded";
//                                     then "changed: the positions compare<int> lists" for the
//                                     values X against X with every third one incremented
//   runtime_driver runs ID... -- P... the ghosts at local ids ID (in that order): "runs: first+length
//                                     ...", then "changed: ..." from compare_runs and "indexed:
//                                     ..." from compare after the values at positions P changed,
//                                     and "restored 1" when scatter_runs put every value back
//   runtime_driver sections OP C... -- M... -- NAME VALUE ...
//                                     an update section of the int entries (NAME, VALUE), names
//                                     ascending, encoded by put_section from listed pairs and
//                                     from a run of changed ghosts ("bytes: hex", "same 1" when
//                                     both agree, "same -" for a repeated name), then applied by apply_section with OP (min,
//                                     add, store) to the cells C at vertex M[NAME], with a
//                                     constant secondary (flags set to 1) and the winners'
//                                     vertices recorded: "cells: ...", "flags: ...", "at: ...",
//                                     "repeated 0|1", "read 1" when it ended at the section's end
//   runtime_driver heap               after map_large_blocks as distribute() leaves it, a 16 MiB
//                                     block written, freed and written again: "faults F", the
//                                     minor page faults of the second writing
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "starc_runtime.hpp"
#include "starc_mpi.hpp"
#include "starc_mpi_sections.hpp"
#include "starc_mpi_values.hpp"

namespace {

template <class T>
void dump_values(std::FILE* f, const char* name, const std::vector<T>& values) {
  std::fprintf(f, "%s", name);
  for (T x : values) std::fprintf(f, std::is_same<T, double>::value ? " %.17g" : " %d", x);
  std::fprintf(f, "\n");
}

int dump(int argc, char** argv) {
  using starc::ParamKind;
  starc::CommandLine cl(argc, argv,
                        {{"reverse", ParamKind::Bool, false}, {"ghostRows", ParamKind::Bool, false},
                         {"globalDegrees", ParamKind::Bool, false}, {"ghostRowSlices", ParamKind::Bool, false},
                         {"order", ParamKind::Int, false}, {"updates", ParamKind::File, false},
                         {"batchSize", ParamKind::Int, false}, {"appendedGhosts", ParamKind::Bool, false}},
                        "dump");
  bool stats = starc_mpi::options(cl);
  starc_mpi::Needs needs;
  needs.reverse = cl.has("reverse") && cl.get_bool("reverse");
  needs.ghost_rows = cl.has("ghostRows") && cl.get_bool("ghostRows");
  needs.global_degrees = cl.has("globalDegrees") && cl.get_bool("globalDegrees");
  needs.ghost_row_slices = cl.has("ghostRowSlices") && cl.get_bool("ghostRowSlices");
  needs.appended_ghosts = cl.has("appendedGhosts") && cl.get_bool("appendedGhosts");
  starc_mpi::Distribution d = starc_mpi::distribute(cl.graph_path, cl.undirected, needs, stats);
  bool ordered = false;
  for (long long k = 0; cl.has("order") && k < cl.get_int("order"); ++k)
    ordered = starc_mpi::order_by_degree(d, starc::DegreeOrderMode::Always);
  int in_place = 0, grew = 0, carried = 1, indexed = 1;
  std::vector<int> peers = d.peers.sources;
  if (cl.has("updates")) {
    starc_mpi::index_ghost_runs(d);  // so that the updates find them built
    starc_mpi::index_mirrors(d);
    long long* values = new long long[static_cast<size_t>(std::max(d.local_nodes, 1))]();
    for (int v = 0; v < d.local_nodes; ++v) values[v] = 3LL * d.global_id[static_cast<size_t>(v)] + 1;
    starc::UpdateStream stream = starc::read_updates(cl.get_text("updates"), d.graph.num_nodes);
    if (cl.undirected) stream = starc::symmetrised(stream);
    for (long long first = 0; first < stream.line_count(); first += cl.get_int("batchSize")) {
      long long last = std::min(first + cl.get_int("batchSize"), stream.line_count());
      for (char kind : {'d', 'a'}) {
        const starc_mpi::LocalChange change = starc_mpi::apply_updates(d, starc::batch_part(stream, first, last, kind), kind);
        in_place += change.moved ? 0 : 1;
        grew += change.growth.grew ? 1 : 0;
        starc_mpi::carry_local(d, change, values);
      }
    }
    for (int v = d.own_begin; v < d.own_end; ++v) carried &= values[v] == 3LL * d.global_id[static_cast<size_t>(v)] + 1;
    for (int v : d.ghost_local) carried &= values[v] == 3LL * d.global_id[static_cast<size_t>(v)] + 1;
    delete[] values;
    starc_mpi::Distribution fresh = d;  // the indexes built anew, against those kept
    fresh.ghost_runs.clear();
    fresh.ghost_runs_cover = 0;
    fresh.mirror_slot.clear();
    starc_mpi::index_ghost_runs(fresh);
    starc_mpi::index_mirrors(fresh);
    starc_mpi::index_ghost_runs(d);
    starc_mpi::index_mirrors(d);
    indexed = fresh.ghost_runs.size() == d.ghost_runs.size() && fresh.mirror_set == d.mirror_set &&
              fresh.mirror_slot == d.mirror_slot && fresh.mirror_uses == d.mirror_uses &&
              fresh.mirror_use_displs == d.mirror_use_displs && fresh.mirror_bit_displs == d.mirror_bit_displs &&
              fresh.mirror_use_bit == d.mirror_use_bit;
    std::vector<int> distinct = d.mirrors;  // the mirror index against a sort of the lists
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    indexed &= distinct == d.mirror_set;
    for (size_t k = 0; indexed && k < d.mirrors.size(); ++k)
      indexed = d.mirror_set[static_cast<size_t>(d.mirror_slot[k])] == d.mirrors[k];
    for (size_t k = 0; indexed && k < d.ghost_runs.size(); ++k)
      indexed = fresh.ghost_runs[k].first == d.ghost_runs[k].first && fresh.ghost_runs[k].length == d.ghost_runs[k].length;
    peers = d.peers.sources;
    indexed &= d.peers.sources == d.peers.destinations;
  }
  std::string name = cl.out_path + "." + std::to_string(d.rank);
  std::FILE* f = std::fopen(name.c_str(), "w");
  if (!f) throw std::runtime_error("cannot write " + name);
  const starc::Graph& g = d.graph;
  std::fprintf(f, "rank %d\nranks %d\nnum_nodes %d\nnum_edges %d\nhas_weights %d\nweights_integral %d\n", d.rank,
               d.ranks, g.num_nodes, g.num_edges, g.has_weights ? 1 : 0, g.weights_integral ? 1 : 0);
  std::fprintf(f, "first %d\nlast %d\nown_begin %d\nown_end %d\nlocal_nodes %d\n", d.first, d.last, d.own_begin,
               d.own_end, d.local_nodes);
  std::fprintf(f, "owned_begin %d\nowned_edges %d\nedge_base %lld\nglobal_edges %lld\nordered %d\ncut_edges %lld\n",
               d.owned_begin, d.owned_edges, d.edge_base, d.global_edges, ordered ? 1 : 0, d.stats.cut_edges);
  std::fprintf(f, "in_place %d\ngrew %d\ncarried %d\nindexed %d\nghost_row_edges %lld\n", in_place, grew, carried,
               indexed, d.stats.ghost_row_edges);
  std::vector<int> mirrors;
  for (int v : d.mirrors) mirrors.push_back(d.global_id[static_cast<size_t>(v)]);
  const std::pair<const char*, const std::vector<int>*> arrays[] = {
      {"splits", &d.splits},        {"offsets", &g.offsets},           {"targets", &g.targets},
      {"sources", &g.sources},      {"rev_offsets", &g.rev_offsets},   {"rev_sources", &g.rev_sources},
      {"rev_edge_ids", &g.rev_edge_ids}, {"global_id", &d.global_id},  {"ghosts", &d.ghosts},
      {"ghost_local", &d.ghost_local}, {"ghost_displs", &d.ghost_displs}, {"mirrors", &mirrors},
      {"mirror_displs", &d.mirror_displs}, {"out_degree", &d.out_degree}, {"in_degree", &d.in_degree},
      {"global_out_degree", &d.global_out_degree}, {"global_in_degree", &d.global_in_degree}, {"peers", &peers}};
  for (const auto& array : arrays) dump_values(f, array.first, *array.second);
  dump_values(f, "weights", g.weights);
  std::fclose(f);
  return 0;
}

int values(int argc, char** argv) {
  starc::CommandLine cl(argc, argv, {}, "values");
  starc_mpi::Distribution d = starc_mpi::distribute(cl.graph_path, cl.undirected, {}, starc_mpi::options(cl));
  int n = d.graph.num_nodes;
  std::vector<long long> local(static_cast<size_t>(d.local_nodes), -1), own;
  for (int v = d.own_begin; v < d.own_end; ++v) {
    local[static_cast<size_t>(v)] = 3LL * d.global_id[static_cast<size_t>(v)] + 1;
    own.push_back(local[static_cast<size_t>(v)]);
  }
  starc_mpi::Results results(d, cl, "values", "mpi");
  results.prop("x", own.data());
  results.ret(n);
  results.close();
  std::vector<long long> read(static_cast<size_t>(n));
  for (int v = 0; v < n; ++v) read[static_cast<size_t>(v)] = starc_mpi::read_node(d, local.data(), v);
  d.stats.supersteps = d.rank + 1;
  d.stats.bytes = 100 * d.rank;
  double slowest = starc_mpi::max_seconds(d, d.rank + 0.5);
  if (d.rank == 0) {
    std::printf("read");
    for (long long x : read) std::printf(" %lld", x);
    std::printf("\nslowest %g\n", slowest);
    std::fflush(stdout);
  }
  starc_mpi::report_stats(d);
  return 0;
}

int encoding(int argc, char** argv) {
  std::vector<int> values, at;
  for (int k = 1; k < argc; ++k) {
    unsigned long long x = std::stoull(argv[k]);
    char bytes[starc_mpi::detail::kMaxVarint];
    char* end = starc_mpi::detail::put_varint(bytes, x);
    std::vector<char> appended;
    starc_mpi::detail::put_varint(appended, x);
    const char* p = appended.data();
    unsigned long long decoded = starc_mpi::detail::get_varint(p);
    std::printf("varint %llu:", x);
    for (const char* b = bytes; b < end; ++b) std::printf(" %02x", static_cast<unsigned char>(*b));
    bool same = static_cast<size_t>(end - bytes) == appended.size() && std::memcmp(bytes, appended.data(), appended.size()) == 0;
    std::printf(" | %llu%s\n", decoded, same && p == appended.data() + appended.size() ? "" : " (appended differs)");
    values.push_back(static_cast<int>(x));
    at.push_back(k - 1);
  }
  std::vector<int> before = values, changed = {7};   // compare replaces what `changed` held
  for (size_t k = 0; k < values.size(); k += 3) ++values[k];
  starc_mpi::detail::compare<int>(reinterpret_cast<const char*>(values.data()), at.data(), at.size(),
                                  reinterpret_cast<const char*>(before.data()), changed);
  std::printf("changed:");
  for (int k : changed) std::printf(" %d", k);
  std::printf("\n");
  return 0;
}

int runs(int argc, char** argv) {
  starc_mpi::Distribution d;
  int k = 1;
  for (; k < argc && std::string(argv[k]) != "--"; ++k) d.ghost_local.push_back(std::stoi(argv[k]));
  std::vector<int> positions;
  for (++k; k < argc; ++k) positions.push_back(std::stoi(argv[k]));
  starc_mpi::index_ghost_runs(d);
  std::printf("runs:");
  for (const starc_mpi::IdRun& run : d.ghost_runs) std::printf(" %d+%d", run.first, run.length);
  std::printf("\n");
  int size = 1;
  for (int v : d.ghost_local) size = std::max(size, v + 1);
  std::vector<long long> data(static_cast<size_t>(size));
  for (int v = 0; v < size; ++v) data[static_cast<size_t>(v)] = 7LL * v - 3;
  const std::vector<long long> original = data;
  char* bytes = reinterpret_cast<char*>(data.data());
  std::vector<long long> before(d.ghost_local.size());
  starc_mpi::detail::gather_runs<long long>(bytes, d.ghost_runs, reinterpret_cast<char*>(before.data()));
  for (int p : positions) data[static_cast<size_t>(d.ghost_local[static_cast<size_t>(p)])] += 1LL << 40;
  std::vector<int> changed = {7}, indexed;   // compare_runs replaces what `changed` held
  starc_mpi::detail::compare_runs<long long>(bytes, d.ghost_runs, reinterpret_cast<const char*>(before.data()), changed);
  starc_mpi::detail::compare<long long>(bytes, d.ghost_local.data(), d.ghost_local.size(),
                                        reinterpret_cast<const char*>(before.data()), indexed);
  for (auto [name, list] : {std::make_pair("changed", &changed), std::make_pair("indexed", &indexed)}) {
    std::printf("%s:", name);
    for (int p : *list) std::printf(" %d", p);
    std::printf("\n");
  }
  starc_mpi::detail::scatter_runs<long long>(bytes, d.ghost_runs, reinterpret_cast<const char*>(before.data()));
  std::printf("restored %d\n", data == original ? 1 : 0);
  return 0;
}

int sections(int argc, char** argv) {
  using starc_mpi::Op;
  const std::string how = argv[1];
  const Op op = how == "min" ? Op::Min : how == "add" ? Op::Add : Op::Store;
  std::vector<int> cells, names, entry_names, values;
  int k = 2;
  for (; k < argc && std::string(argv[k]) != "--"; ++k) cells.push_back(std::stoi(argv[k]));
  for (++k; k < argc && std::string(argv[k]) != "--"; ++k) names.push_back(std::stoi(argv[k]));
  for (++k; k + 1 < argc; k += 2) {
    entry_names.push_back(std::stoi(argv[k]));
    values.push_back(std::stoi(argv[k + 1]));
  }
  // the sender: entry e's value at its vertex e; as a run, entry e is ghost position
  // entry_names[e] + first, held at local id e
  starc_mpi::detail::SuperstepField f;
  f.data = reinterpret_cast<char*>(values.data());
  f.size = sizeof(int);
  starc_mpi::detail::Entries listed, run;
  for (size_t e = 0; e < values.size(); ++e) listed.listed.push_back({entry_names[e], static_cast<int>(e)});
  const int first = 3;
  std::vector<int> positions, ghost_local(static_cast<size_t>(first) + names.size(), -1);
  for (size_t e = 0; e < values.size(); ++e) {
    positions.push_back(entry_names[e] + first);
    ghost_local[static_cast<size_t>(entry_names[e] + first)] = static_cast<int>(e);
  }
  run.ghosts = positions.data();
  run.run = positions.size();
  run.ghost_local = ghost_local.data();
  run.first = first;
  std::vector<char> a, b;
  int base_a = -1, base_b = -1;
  starc_mpi::detail::put_section(a, f, listed, base_a);
  starc_mpi::detail::put_section(b, f, run, base_b);
  std::printf("bytes:");
  for (char c : a) std::printf(" %02x", static_cast<unsigned char>(c));
  // (a run of changed ghosts names each once: compared where the names are distinct)
  const bool distinct = std::adjacent_find(entry_names.begin(), entry_names.end()) == entry_names.end();
  if (distinct) std::printf("\nsame %d\n", a == b && base_a == base_b ? 1 : 0);
  else std::printf("\nsame -\n");
  std::vector<unsigned char> flags(cells.size(), 0);
  const unsigned char one = 1;
  starc_mpi::detail::ConstantTarget flag{reinterpret_cast<char*>(flags.data()), 1, reinterpret_cast<const char*>(&one)};
  std::vector<int> at = {7};   // recorded after what it held
  starc_mpi::detail::Winners winners{&flag, 1, &at};
  const char* p = a.data();
  int base = -1, name = -1;
  size_t count = starc_mpi::detail::get_section(p, base, name);
  bool repeated = false;
  p = starc_mpi::detail::apply_section<int>(reinterpret_cast<char*>(cells.data()), p, count, name, names.data(), op, winners,
                                            repeated);
  std::printf("cells:");
  for (int c : cells) std::printf(" %d", c);
  std::printf("\nflags:");
  for (unsigned char c : flags) std::printf(" %d", c);
  std::printf("\nat:");
  for (int v : at) std::printf(" %d", v);
  std::printf("\nrepeated %d\nread %d\n", repeated ? 1 : 0, p == a.data() + a.size() ? 1 : 0);
  return 0;
}

}  // namespace

int heap() {
  starc_mpi::detail::map_large_blocks(true);
  starc_mpi::detail::map_large_blocks(false);
  const size_t bytes = size_t{16} << 20;   // under the threshold: from the heap
  auto write_once = [&] {
    char* block = static_cast<char*>(std::malloc(bytes));
    std::memset(block, 1, bytes);
    std::free(block);
  };
  write_once();
  rusage before{}, after{};
  getrusage(RUSAGE_SELF, &before);
  write_once();
  getrusage(RUSAGE_SELF, &after);
  std::printf("faults %ld\n", after.ru_minflt - before.ru_minflt);
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  std::string mode = argv[1];
  argv[1] = argv[0];  // the mode is not part of the program's command line
  if (mode == "read")
    return starc::guarded_main("runtime_driver", [&] {
      starc::CommandLine cl(argc - 1, argv + 1, {}, "read");
      starc::read_graph(cl.graph_path, cl.undirected);
    });
  if (mode == "encoding") return encoding(argc - 1, argv + 1);
  if (mode == "runs") return runs(argc - 1, argv + 1);
  if (mode == "sections") return sections(argc - 1, argv + 1);
  if (mode == "heap") return heap();
  if (mode == "dump") return starc_mpi::guarded_main(argc - 1, argv + 1, "runtime_driver", dump);
  if (mode == "values") return starc_mpi::guarded_main(argc - 1, argv + 1, "runtime_driver", values);
  return 2;
}
