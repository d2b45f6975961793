"""OpenCL generation: golden text of one atomic, one transfer and one launcher; the C++ host's
device operations, headers, extensions and errors."""

from __future__ import annotations

import pytest

from opencl_helpers import ROOT, compile_dsl, compile_text
from starc.backends.base import BackendError, BackendOptions
from starc.backends.opencl.kernels import required_extensions

pytestmark = pytest.mark.opencl


def _between(text: str, start: str, end: str) -> str:
    head = text.index(start)
    return text[head:text.index(end, head)]


def test_golden_sssp_min_atomic():
    cl = compile_dsl("sssp").generated.files["sssp.cl"]
    dense = cl[cl.index("__kernel void Compute_SSSP_forall_11_dense("):]
    # Each work item runs a contiguous run of vertices (one on a GPU, up to 64 on a CPU:
    # starc_launch), skipping those the guard rules out; none returns early (its run is empty
    # past the bound), so the work-group meets at the end, where it adds its count of the
    # flags it flipped (counted in local memory) with one atomic. A vertex whose distance is
    # the one it last ran with skips the round (analysis.pushed_values: on a CPU, where this
    # kernel runs).
    assert _between(dense, "    const size_t starc_run", "\n}") == """\
    const size_t starc_run = ((size_t)n + get_global_size(0) - 1) / get_global_size(0);
    const size_t starc_first = get_global_id(0) * starc_run;
    const size_t starc_last = min((size_t)n, starc_first + starc_run);
    __local int starc_staged_modified_frontier_size_count;
    if ((int)get_local_id(0) == 0) {
        starc_staged_modified_frontier_size_count = 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int v = (int)starc_first; v < (int)starc_last; v++) {
        if (!modified[v]) continue;
        long dist_seen = (long)dist[v];
        if (dist_seen != dist_pushed[v]) {
            dist_pushed[v] = dist_seen;
            for (int e_nbr = offsets[v]; e_nbr < offsets[v + 1]; e_nbr++) {
                int nbr = targets[e_nbr];
                int e = e_nbr;
                int dist_new = starc_add_int(dist[v], weight[e]);
                if (dist_new < dist[nbr] && starc_atomic_min_int(&dist[nbr], dist_new) > dist_new) {  // sssp.sp:14
                    if (!modified_nxt[nbr]) {
                        modified_nxt[nbr] = true;
                        atomic_inc(&starc_staged_modified_frontier_size_count);
                    }
                }
            }
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if ((int)get_local_id(0) == 0) {
        if (starc_staged_modified_frontier_size_count != 0) starc_atomic_add_int(&modified_frontier_size[frontier_round % 2], starc_staged_modified_frontier_size_count);
    }"""


def test_golden_tc_exclusive_reduction_is_one_atomic_per_work_group():
    # triangle_count is only ever incremented in the kernel: each work item counts into a
    # private; after its loops the work-group folds the privates by a tree in local memory
    # (wrapping adds) and its first item adds the fold to the device scalar (skipped when 0).
    cl = compile_dsl("tc").generated.files["tc.cl"]
    assert _between(cl, "    long triangle_count_local = 0;", "\n}") .endswith("""\
    __local long starc_group_triangle_count_local[1024];
    {
        const int starc_lane = (int)get_local_id(0);
        const int starc_lanes = (int)get_local_size(0);
        starc_group_triangle_count_local[starc_lane] = triangle_count_local;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int starc_width = starc_lanes; starc_width > 1; ) {
            const int starc_half = (starc_width + 1) / 2;
            if (starc_lane + starc_half < starc_width) {
                starc_group_triangle_count_local[starc_lane] = starc_add_long(starc_group_triangle_count_local[starc_lane], starc_group_triangle_count_local[starc_lane + starc_half]);
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            starc_width = starc_half;
        }
        if (starc_lane == 0) triangle_count_local = starc_group_triangle_count_local[0];
    }
    if (triangle_count_local != 0) {
        if ((int)get_local_id(0) == 0) {
            starc_atomic_add_long(&triangle_count_dev[0], triangle_count_local);  // tc.sp:10
        }
    }""")
    # one atomic in the kernel and one in its variant for lockstep devices (one per edge),
    # and the same in each of their swapped-row forms for a renumbered graph (row_swap)
    kernels = cl.split("// --- kernels")[1].split("__kernel void ")[1:]
    assert [k.split("(")[0] for k in kernels] == ["Compute_TC_forall_6",
                                                  "Compute_TC_forall_6_swapped",
                                                  "Compute_TC_forall_6_lockstep",
                                                  "Compute_TC_forall_6_swapped_lockstep"]
    assert [k.count("starc_atomic_") for k in kernels] == [1, 1, 1, 1]


def test_golden_sssp_fixedpoint_is_one_helper_call_per_device_operation():
    cpp = compile_dsl("sssp").generated.files["sssp.cpp"]
    assert _between(cpp, "            do {  // sssp.sp:10",
                    "            starc_copy_to_host<int>(starc_device, h_dist") == """\
            do {  // sssp.sp:10
                frontier_round += 1;
                if (frontier_count > g.num_nodes / 20) {  // sssp.sp:10
                    starc_write_element<int>(starc_device, d_modified_frontier_size, 1 - frontier_round % 2, 0, "sssp.sp:10");
                    starc_fill<int>(starc_device, d_modified_window, INT_MAX, 3, "sssp.sp:10");
                    if (starc_lockstep) {
                        Compute_SSSP_forall_11_dense_lockstep(starc_device, kernel_Compute_SSSP_forall_11_dense_lockstep, "sssp.sp:11", g.num_edges, d_targets, d_sources, d_dist, d_weight, d_modified, d_modified_nxt, d_modified_frontier_size, frontier_round);
                    } else {
                        Compute_SSSP_forall_11_dense(starc_device, kernel_Compute_SSSP_forall_11_dense, "sssp.sp:11", g.num_nodes, d_offsets, d_targets, d_dist, d_weight, d_modified, d_modified_nxt, d_modified_frontier_size, d_dist_pushed, frontier_round);
                    }
                } else if (frontier_count <= 8192 && !starc_lockstep) {
                    Compute_SSSP_forall_11_sparse_rounds(starc_device, kernel_Compute_SSSP_forall_11_sparse_rounds, "sssp.sp:10", g.num_nodes, d_offsets, d_targets, d_dist, d_weight, d_modified, d_modified_nxt, d_modified_frontier, d_modified_frontier_nxt, d_modified_queued, d_modified_frontier_size, d_modified_window, d_modified_rounds, frontier_round, frontier_count, window_delta);
                    {
                        int starc_slots[2];
                        starc_copy_to_host<int>(starc_device, starc_slots, d_modified_rounds, 2, "sssp.sp:10");
                        frontier_round = starc_slots[0];
                        frontier_steps = starc_slots[1];
                    }
                    if (frontier_steps % 2 == 0) {  // sssp.sp:10
                        std::swap(d_modified, d_modified_nxt);
                        std::swap(d_modified_frontier, d_modified_frontier_nxt);
                    }
                } else {
                    if (starc_lockstep) {
                        Compute_SSSP_forall_11_sparse_lockstep(starc_device, kernel_Compute_SSSP_forall_11_sparse_lockstep, "sssp.sp:11", frontier_count, d_offsets, d_targets, d_dist, d_weight, d_modified, d_modified_nxt, d_modified_frontier, d_modified_frontier_nxt, d_modified_queued, d_modified_frontier_size, d_modified_window, frontier_round, window_delta);
                    } else {
                        Compute_SSSP_forall_11_sparse(starc_device, kernel_Compute_SSSP_forall_11_sparse, "sssp.sp:11", frontier_count, d_offsets, d_targets, d_dist, d_weight, d_modified, d_modified_nxt, d_modified_frontier, d_modified_frontier_nxt, d_modified_queued, d_modified_frontier_size, d_modified_window, frontier_round, window_delta);
                    }
                }
                std::swap(d_modified, d_modified_nxt);
                std::swap(d_modified_frontier, d_modified_frontier_nxt);
                if (frontier_count > g.num_nodes / 20) {  // sssp.sp:10
                    starc_fill<unsigned char>(starc_device, d_modified_nxt, false, g.num_nodes, "sssp.sp:10");
                    frontier_count = starc_read_element<int>(starc_device, d_modified_frontier_size, frontier_round % 2, "sssp.sp:10");
                    if (frontier_count != 0 && frontier_count <= g.num_nodes / 20) {  // sssp.sp:10
                        frontier_round += 1;
                        starc_write_element<int>(starc_device, d_modified_frontier_size, 1 - frontier_round % 2, 0, "sssp.sp:10");
                        modified_frontier_build(starc_device, kernel_modified_frontier_build, "sssp.sp:10", g.num_nodes, d_modified, d_modified_frontier, d_modified_frontier_size, frontier_round);
                        frontier_count = starc_read_element<int>(starc_device, d_modified_frontier_size, frontier_round % 2, "sssp.sp:10");
                    }
                } else {
                    frontier_count = starc_read_element<int>(starc_device, d_modified_frontier_size, frontier_round % 2, "sssp.sp:10");
                }
            } while (frontier_count != 0);
"""
    # The graph and the weights go in once; only the result comes back.
    assert "starc_copy_to_device<int>(starc_device, d_weight, h_weight.data(), g.num_edges, " \
        '"sssp.sp:4");' in cpp
    # offsets, targets, weight; the edges' sources, which only the variant for lockstep
    # devices reads, only on such a device
    assert cpp.count("starc_copy_to_device<") == 4
    assert """
        cl_mem d_sources = nullptr;
        if (starc_lockstep) {
            d_sources = starc_malloc<int>(starc_device, g.num_edges, "d_sources", "sssp.sp:4");
            starc_copy_to_device<int>(starc_device, d_sources, g.sources.data(), g.num_edges, "sssp.sp:4");
        }
""" in cpp
    # dist, and the state a small sparse round's rounds leave (last round, steps run)
    assert cpp.count("starc_copy_to_host<") == 2
    assert "cl_mem d_modified = nullptr;" in cpp


def test_golden_launcher_sets_each_argument_then_launches():
    cpp = compile_dsl("sssp").generated.files["sssp.cpp"]
    launcher = _between(cpp, "// sssp.sp:11\nstatic void", "\n}\n")
    assert launcher == """\
// sssp.sp:11
static void Compute_SSSP_forall_11_dense(const starc_opencl& device,
                                         const starc_kernel& kernel,
                                         const char* where,
                                         cl_int n,
                                         cl_mem offsets,
                                         cl_mem targets,
                                         cl_mem dist,
                                         cl_mem weight,
                                         cl_mem modified,
                                         cl_mem modified_nxt,
                                         cl_mem modified_frontier_size,
                                         cl_mem dist_pushed,
                                         cl_int frontier_round) {
    starc_set_arg(kernel, 0, n, where);
    starc_set_arg(kernel, 1, offsets, where);
    starc_set_arg(kernel, 2, targets, where);
    starc_set_arg(kernel, 3, dist, where);
    starc_set_arg(kernel, 4, weight, where);
    starc_set_arg(kernel, 5, modified, where);
    starc_set_arg(kernel, 6, modified_nxt, where);
    starc_set_arg(kernel, 7, modified_frontier_size, where);
    starc_set_arg(kernel, 8, dist_pushed, where);
    starc_set_arg(kernel, 9, frontier_round, where);
    starc_launch(device, kernel, n, where);"""
    # a worklist kernel launches one work item per queue entry
    assert "    starc_launch(device, kernel, frontier_count, where);" in cpp
    # Kernel objects are created once, before the timer starts.
    setup = _between(cpp, "starc_opencl starc_device", "starc_timer.start();")
    assert 'starc_open_device(cl, "sssp.cl", {}, "sssp.sp:4")' \
        in setup
    assert 'starc_kernel kernel_Compute_SSSP_forall_11_sparse = starc_create_kernel(' \
        'starc_device, "Compute_SSSP_forall_11_sparse", starc_block, "sssp.sp:11");' in setup


def test_kernels_of_uniform_items_launch_long_runs_and_neighbour_loops_short_ones():
    """A kernel whose items all do the same small work (the plan's uniform_items: a frontier
    build, a flag scan) asks starc_launch for runs of STARC_UNIFORM_RUN_ITEMS on a CPU; one
    with a neighbour loop keeps the default runs of STARC_RUN_ITEMS."""
    cpp = compile_dsl("sssp").generated.files["sssp.cpp"]
    build = _between(cpp, "static void modified_frontier_build(", "\n}\n")
    assert build.endswith("starc_launch(device, kernel, n, where, STARC_UNIFORM_RUN_ITEMS);")
    for relax in ("Compute_SSSP_forall_11_dense", "Compute_SSSP_forall_11_sparse"):
        launcher = _between(cpp, f"static void {relax}(", "\n}\n")
        assert "STARC_UNIFORM_RUN_ITEMS" not in launcher
        assert launcher.endswith("starc_launch(device, kernel, n, where);") or \
            launcher.endswith("starc_launch(device, kernel, frontier_count, where);")


SCALARS = """
function Scalars(Graph g, propNode<int> out, bool y, long z, float scale, double d) {
    g.attachNodeProperty(out = 0);
    forall (v in g.nodes()) {
        if (y) { v.out = v + z + scale + d; }
    }
    for (v in g.nodes()) { v.out = v.out + 1; }
}
"""


def test_launcher_scalars_have_the_kernels_storage_types():
    cpp = compile_text(SCALARS).generated.files["prog.cpp"]
    for declaration in ("cl_uchar y", "cl_long z", "cl_float scale", "cl_double d"):
        assert declaration in cpp
    # The sequential for over the nodes is a single-item kernel: exactly one work item.
    single = _between(cpp, "static void Scalars_for_7(", "\n}\n")
    assert single.endswith("starc_launch_single(device, kernel, where);")


def test_launcher_parameters_stay_off_cxx_names_and_its_own():
    comp = compile_text("""
function F(Graph g, propNode<int> device, propNode<int> where, propNode<int> xor) {
    forall (v in g.nodes()) { v.device = v.where + v.xor; }
}""")
    cpp = comp.generated.files["prog.cpp"]
    assert "cl_mem device_2" in cpp and "cl_mem where_2" in cpp and "cl_mem xor_2" in cpp


def test_headers_name_version_backend_source_and_commands():
    import starc
    generated = compile_dsl("sssp").generated
    assert generated.main == "sssp.cpp"
    cl, cpp = generated.files["sssp.cl"], generated.files["sssp.cpp"]
    assert f"generated by starc {starc.__version__} (backend opencl) from sssp.sp" in cl
    assert "the host is sssp.cpp (C++, OpenCL C API)" in cl
    assert cpp.startswith(f"// Generated by starc {starc.__version__} (opencl backend) from "
                          "sssp.sp, function Compute_SSSP.\n")
    assert "//   g++ -std=c++17 -O2 -fwrapv -fopenmp -o sssp sssp.cpp -lOpenCL\n" in cpp
    assert generated.build_hint == "g++ -std=c++17 -O2 -fwrapv -fopenmp -o sssp sssp.cpp -lOpenCL"
    assert "// Run: ./sssp GRAPH_FILE --src NODE [--undirected] [--out FILE] [--time]\n" in cpp
    # self-contained: the folder holds the runtime it includes, and nothing Python
    assert {"starc_runtime.hpp", "starc_opencl_host.hpp", "starc_opencl_device.hpp"} <= set(
        generated.files)
    assert not any(name.endswith(".py") for name in generated.files)
    assert "import" not in cpp and "pyopencl" not in cpp


@pytest.mark.parametrize("size, default", [(None, "256"), (64, "64")])
def test_block_size_is_the_programs_default(size, default):
    comp = compile_text((ROOT / "dsl" / "sssp.sp").read_text(), "sssp.sp",
                        options=BackendOptions(block_size=size))
    assert f"const std::size_t starc_block = starc_block_size(cl, {default});" in \
        comp.generated.files["sssp.cpp"]


def test_64bit_atomics_and_doubles_are_requested_only_when_used():
    tc = compile_dsl("tc").generated.files
    assert "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable" in tc["tc.cl"]
    assert tc["tc.cl"].count("#pragma OPENCL EXTENSION") == 1
    assert '"tc.cl", {"cl_khr_int64_base_atomics"}, "tc.sp:' in tc["tc.cpp"]
    sssp = compile_dsl("sssp").generated.files["sssp.cl"]
    assert "#pragma OPENCL EXTENSION" not in sssp
    assert required_extensions({"double", "atomic_add_double", "atomic_min_long"}) == [
        "cl_khr_fp64", "cl_khr_int64_base_atomics", "cl_khr_int64_extended_atomics"]
    assert required_extensions({"atomic_add_float", "atomic_min_int"}) == []


def test_double_program_enables_fp64():
    comp = compile_text("""
function Total(Graph g, propNode<double> x) {
    double total = 0;
    g.attachNodeProperty(x = 0.5);
    forall (v in g.nodes()) { total += v.x; }
    return total;
}""")
    files = comp.generated.files
    assert "#pragma OPENCL EXTENSION cl_khr_fp64 : enable" in files["prog.cl"]
    assert "    double total_local = 0;\n" \
        "    for (int v = (int)starc_first; v < (int)starc_last; v++) {\n" \
        "        total_local += x[v];  // prog.sp:5\n    }\n" \
        "    __local double starc_group_total_local[1024];\n" in files["prog.cl"]
    assert "    if (total_local != 0) {\n" \
        "        if ((int)get_local_id(0) == 0) {\n" \
        "            starc_atomic_add_double(&total_dev[0], total_local);  // prog.sp:5\n" \
        "        }\n    }\n}" in files["prog.cl"]
    assert '{"cl_khr_fp64", "cl_khr_int64_base_atomics"}' in files["prog.cpp"]


def test_every_plan_kernel_is_in_the_kernel_file_and_has_a_launcher():
    comp = compile_dsl("bc")
    text, cpp = comp.generated.files["bc.cl"], comp.generated.files["bc.cpp"]
    for kernel in comp.plan.kernels:
        assert f"__kernel void {kernel.name}(" in text
        assert f"static void {kernel.name}(" in cpp
        assert cpp.count(f"starc_create_kernel(starc_device, \"{kernel.name}\"") == 1
    assert "cl_khr_fp64" not in text.split("// --- kernels")[1]


def test_unsupported_construct_is_a_backend_error_with_location():
    import dataclasses
    from starc.backends.opencl.emitter import OpenCLBackend
    from starc.analysis.frontier import choose_form
    comp = compile_dsl("sssp")
    topology = choose_form(comp.plan, worklist=False)    # one kernel, launched once
    bad = dataclasses.replace(topology.kernels[0], extent="faces")
    plan = dataclasses.replace(topology, kernels=(bad,))
    with pytest.raises(BackendError, match="opencl backend cannot express a kernel over 'faces'"):
        OpenCLBackend().generate(plan, BackendOptions())
