// Test driver for the shared C++ runtime (starc_runtime.hpp); used by test_runtime.py.
//
//   runtime_driver dump GRAPH [--undirected]         the CSR arrays, one "name values..." line each
//   runtime_driver params GRAPH --src N [options]    every declared parameter, read back
//   runtime_driver results GRAPH --values FILE [--out FILE] [--time]
//                                                   props/returns of the doubles in FILE
//   runtime_driver time-read GRAPH                   seconds spent in read_graph
//   runtime_driver order GRAPH                       the binned orders (runs of 4) by in- and out-degree
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "starc_runtime.hpp"

namespace {

void dump_ints(const char* name, const std::vector<int>& v) {
  std::printf("%s", name);
  for (int x : v) std::printf(" %d", x);
  std::printf("\n");
}

int dump(int argc, char** argv) {
  starc::CommandLine cl(argc, argv, {}, "dump");
  starc::Graph g = starc::read_graph(cl.graph_path, cl.undirected);
  std::printf("num_nodes %d\nnum_edges %d\nhas_weights %d\nweights_integral %d\n", g.num_nodes, g.num_edges,
              g.has_weights ? 1 : 0, g.weights_integral ? 1 : 0);
  dump_ints("offsets", g.offsets);
  dump_ints("targets", g.targets);
  dump_ints("sources", g.sources);
  dump_ints("rev_offsets", g.rev_offsets);
  dump_ints("rev_sources", g.rev_sources);
  dump_ints("rev_edge_ids", g.rev_edge_ids);
  std::printf("weights");
  for (double w : g.weights) std::printf(" %.17g", w);
  std::printf("\n");
  return 0;
}

int order(int argc, char** argv) {
  starc::CommandLine cl(argc, argv, {}, "order");
  starc::Graph g = starc::read_graph(cl.graph_path, cl.undirected);
  dump_ints("in_binned_order", g.binned_order(true, 4));
  dump_ints("out_binned_order", g.binned_order(false, 4));
  return 0;
}

int params(int argc, char** argv) {
  using starc::ParamKind;
  starc::CommandLine cl(argc, argv,
                        {{"src", ParamKind::Node, true},
                         {"sourceSet", ParamKind::NodeSet, false},
                         {"beta", ParamKind::Double, false},
                         {"alpha", ParamKind::Float, false},
                         {"maxIter", ParamKind::Int, false},
                         {"big", ParamKind::Long, false},
                         {"flag", ParamKind::Bool, false}},
                        "params");
  starc::Graph g = starc::read_graph(cl.graph_path, cl.undirected);
  std::printf("src %d\n", cl.get_node("src", g));
  if (cl.has("sourceSet")) {
    std::printf("sourceSet");
    for (int v : cl.get_node_set("sourceSet", g)) std::printf(" %d", v);
    std::printf("\n");
  }
  if (cl.has("beta")) std::printf("beta %.17g\n", cl.get_double("beta"));
  if (cl.has("alpha")) std::printf("alpha %.9g\n", static_cast<float>(cl.get_double("alpha")));
  if (cl.has("maxIter")) std::printf("maxIter %lld\n", cl.get_int("maxIter"));
  if (cl.has("big")) std::printf("big %lld\n", cl.get_int("big"));
  if (cl.has("flag")) std::printf("flag %d\n", cl.get_bool("flag") ? 1 : 0);
  std::printf("undirected %d\ntime %d\nout [%s]\n", cl.undirected ? 1 : 0, cl.time ? 1 : 0, cl.out_path.c_str());
  std::printf("device [%s]\nblock-size [%s]\n", cl.get_extra("device", "cpu").c_str(),
              cl.get_extra("block-size", "none").c_str());
  std::printf("extra");
  for (const std::string& e : cl.extra) std::printf(" [%s]", e.c_str());
  std::printf("\n");
  return 0;
}

int results(int argc, char** argv) {
  starc::CommandLine cl(argc, argv, {}, "results", {{"values", "FILE", "the values to write, one a line"}});
  starc::Timer timer;
  timer.start();
  std::vector<double> values;
  std::FILE* f = std::fopen(cl.get_extra("values", "").c_str(), "r");
  if (!f) throw std::runtime_error("cannot open --values");
  double x;
  while (std::fscanf(f, "%lf", &x) == 1) values.push_back(x);
  std::fclose(f);
  int n = static_cast<int>(values.size());
  std::vector<float> floats(values.begin(), values.end());
  std::vector<int> ints(values.size());
  std::vector<long long> longs(values.size());
  std::unique_ptr<bool[]> bools(new bool[values.size() + 1]);
  std::vector<unsigned char> bytes(values.size());
  for (int i = 0; i < n; ++i) {
    ints[i] = -i * 1000003;
    longs[i] = static_cast<long long>(i) * 1000000000007LL - 5;
    bools[i] = i % 3 == 0;
    bytes[i] = static_cast<unsigned char>(i % 2 ? 7 : 0);
  }
  timer.stop();
  starc::Results out(cl, "results", "test");
  out.prop("d", values.data(), n);
  out.prop("f", floats.data(), n);
  out.prop("i", ints.data(), n);
  out.prop("l", longs.data(), n);
  out.prop("b", bools.get(), n);
  out.prop("u", bytes.data(), n);
  if (n > 0) {
    out.ret(values[0]);
    out.ret(floats[0]);
  }
  out.ret(-7);
  out.ret(123456789012345LL);
  out.ret(true);
  out.close();
  if (cl.time) starc::report_time(timer.seconds());
  return 0;
}

int time_read(int argc, char** argv) {
  starc::CommandLine cl(argc, argv, {}, "time-read");
  starc::Timer timer;
  timer.start();
  starc::Graph g = starc::read_graph(cl.graph_path, cl.undirected);
  timer.stop();
  std::printf("edges %d seconds %.6f\n", g.num_edges, timer.seconds());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: runtime_driver dump|order|params|results|time-read GRAPH [options]\n");
    return 64;
  }
  std::string mode = argv[1];
  // The mode word is dropped so CommandLine sees "prog GRAPH [options]".
  argv[1] = argv[0];
  return starc::guarded_main("runtime_driver", [&]() -> int {
    if (mode == "dump") return dump(argc - 1, argv + 1);
    if (mode == "order") return order(argc - 1, argv + 1);
    if (mode == "params") return params(argc - 1, argv + 1);
    if (mode == "results") return results(argc - 1, argv + 1);
    if (mode == "time-read") return time_read(argc - 1, argv + 1);
    throw std::runtime_error("unknown mode " + mode);
  });
}
