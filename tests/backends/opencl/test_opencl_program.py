"""Generated OpenCL programs, built with g++ and run on the OpenCL device (PoCL): anywhere,
without starc; and their errors (missing kernel file, kernels that do not build, a missing
device extension, bad command lines and input). The e2e matrix (tests/e2e) runs every dsl
program through ``starc.compile(...).run``."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess

import pytest

from opencl_helpers import ROOT, build, compile_dsl, compile_text
from starc.backends.common.runtime_paths import runtime_files
from starc.backends.opencl.emitter import OpenCLBackend
from starc.backends.opencl.toolchain import HOST_HEADERS
from starc.graphs import load_graph, rmat, write_edge_list
from starc.reference import execute
from starc.results import compare_results, parse_results

pytestmark = pytest.mark.opencl

# weighted, with a self-loop, a duplicate edge and an isolated vertex (6)
SMALL = "0 1 4\n0 2 1\n2 1 2\n1 3 1\n2 3 5\n3 4 3\n5 5 1\n0 1 7\n4 0 2\n# 7 vertices\n6 6 1\n"


@pytest.fixture(scope="module")
def graph(tmp_path_factory) -> pathlib.Path:
    path = tmp_path_factory.mktemp("graphs") / "small.el"
    path.write_text(SMALL)
    return path


@pytest.fixture(scope="module")
def sssp(tmp_path_factory) -> pathlib.Path:
    """The built sssp program's folder (copy it before changing anything in it)."""
    folder = tmp_path_factory.mktemp("sssp")
    build(compile_dsl("sssp").generated, folder)
    return folder


def _copy(folder: pathlib.Path, tmp_path: pathlib.Path) -> pathlib.Path:
    return pathlib.Path(shutil.copytree(folder, tmp_path / "copy"))


def _run(program: pathlib.Path, *args, cwd=None, env=None):
    return subprocess.run([str(program), *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=300)


def _reference(comp, graph_path, params, undirected=False):
    return execute(comp.ir, load_graph(str(graph_path), undirected=undirected), params,
                   function=comp.function.name)


@pytest.mark.parametrize("name, undirected, params", [("sssp", False, {"src": "0"}),
                                                      ("tc", True, {})])
def test_output_folder_runs_anywhere_without_starc(name, undirected, params, graph, tmp_path):
    """Built, moved out of the checkout, run from elsewhere with no PYTHONPATH: the folder
    (executable + kernel file) is the whole program."""
    comp = compile_dsl(name)
    built = tmp_path / "built"
    build(comp.generated, built)
    moved = pathlib.Path(shutil.move(str(built), str(tmp_path / "handed" / "to" / "a student")))
    assert ROOT not in moved.parents and not built.exists()
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "VIRTUAL_ENV", "STARC_CACHE_DIR")}
    argv = [graph, "--time"] + (["--undirected"] if undirected else [])
    for key, value in params.items():
        argv += [f"--{key}", value]
    proc = _run(moved / name, *argv, cwd=elsewhere, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.startswith("starc-time ") and float(proc.stderr.split()[1]) >= 0
    got = parse_results(proc.stdout)
    assert got.backend == "opencl" and got.function == comp.function.name
    assert compare_results(_reference(comp, graph, params, undirected), got) == []
    assert list(elsewhere.iterdir()) == []


def test_missing_kernel_file_is_a_clear_error(sssp, tmp_path, graph):
    folder = _copy(sssp, tmp_path)
    (folder / "sssp.cl").unlink()
    proc = _run(folder / "sssp", graph, "--src", "0")
    assert proc.returncode == 3 and proc.stdout == ""
    assert proc.stderr.startswith(f"error: cannot read the OpenCL kernels {folder / 'sssp.cl'} "
                                  "(No such file or directory); they must lie in the folder of "
                                  "the program at sssp.sp:4\n")


def test_kernels_that_do_not_build_show_the_build_log(sssp, tmp_path, graph):
    folder = _copy(sssp, tmp_path)
    text = (folder / "sssp.cl").read_text()
    (folder / "sssp.cl").write_text(text.replace("int nbr = targets[e_nbr];",
                                                 "int nbr = targets[e_nbr] +;"))
    proc = _run(folder / "sssp", graph, "--src", "0")
    assert proc.returncode == 3 and proc.stdout == ""
    # (PoCL's compiler also writes its diagnostics to stderr while it builds)
    report = proc.stderr[proc.stderr.index("error: no OpenCL device"):]
    assert report.startswith(f"error: no OpenCL device can run {folder / 'sssp.cl'} at "
                             "sssp.sp:4\n  ")
    assert ": the kernels do not build (CL_BUILD_PROGRAM_FAILURE); build log:\n" in report
    assert "expected expression" in proc.stderr        # the OpenCL compiler's own words


def test_a_missing_device_extension_is_named(monkeypatch, tmp_path, graph):
    from starc.backends.opencl import emitter
    real = emitter.render_kernels

    def needing_more(kernels, **options):
        rendered = real(kernels, **options)
        rendered.extensions = rendered.extensions + ["cl_starc_no_such_extension"]
        return rendered

    monkeypatch.setattr(emitter, "render_kernels", needing_more)
    program = build(compile_text((ROOT / "dsl" / "sssp.sp").read_text(), "sssp.sp").generated,
                    tmp_path)
    proc = _run(program, graph, "--src", "0")
    assert proc.returncode == 3
    assert ": lacks cl_starc_no_such_extension, which the kernels need" in proc.stderr


def test_usage_and_input_errors(sssp, graph, tmp_path):
    program = sssp / "sssp"
    missing = _run(program, graph)
    assert missing.returncode == 2 and "missing required option --src" in missing.stderr
    bad = _run(program, graph, "--src", "99")
    assert bad.returncode == 2 and "--src expects a node id (0.." in bad.stderr \
        and "got '99'" in bad.stderr
    for option, value, message in (("--device", "tpu", "--device expects cpu, gpu or default, "
                                                       "got 'tpu'"),
                                   ("--block-size", "0", "--block-size expects a work-group "
                                                         "size from 1 to 1024, got '0'")):
        proc = _run(program, graph, "--src", "0", option, value)
        assert proc.returncode == 2 and message in proc.stderr, proc.stderr
    broken = tmp_path / "broken.el"
    broken.write_text("0 1 2\n1 x\n")
    unreadable = _run(program, broken, "--src", "0")
    assert unreadable.returncode == 1 and f"{broken}:2" in unreadable.stderr
    unweighted = tmp_path / "unweighted.el"
    unweighted.write_text("0 1\n")
    no_weights = _run(program, unweighted, "--src", "0")
    assert no_weights.returncode == 1 and "weights" in no_weights.stderr


def test_device_kind_and_block_size_options(sssp, graph):
    comp = compile_dsl("sssp")
    want = _reference(comp, graph, {"src": "0"})
    for extra in (["--device", "cpu"], ["--block-size", "3"], ["--block-size", "1024"]):
        proc = _run(sssp / "sssp", graph, "--src", "0", *extra)
        assert proc.returncode == 0, proc.stderr
        assert compare_results(want, parse_results(proc.stdout)) == [], extra
    gpu = _run(sssp / "sssp", graph, "--src", "0", "--device", "gpu")
    if gpu.returncode != 0:    # no GPU here: the message names what there is, status 1
        assert gpu.returncode == 1
        assert gpu.stderr.startswith("sssp: error: no OpenCL gpu device found (found: ")


@pytest.mark.parametrize("name, undirected, params", [("sssp", False, {"src": "0"}),
                                                      ("tc", True, {}), ("bc", False,
                                                                        {"sourceSet": "0,7"})])
def test_runs_of_items_and_one_item_per_work_item_agree(name, undirected, params, tmp_path):
    """On a CPU device each work item runs a run of up to 64 vertices (starc_launch); with
    --block-size, one vertex per work item as on a GPU. Both match the reference on a graph
    large enough for runs of many vertices, a worklist and a reduction."""
    path = tmp_path / "rmat.el"
    write_edge_list(rmat(11, edge_factor=8, seed=4, weights=True), path)
    comp = compile_dsl(name)
    program = build(comp.generated, tmp_path / "prog")
    want = _reference(comp, path, params, undirected)
    args = [path, *(["--undirected"] if undirected else []),
            *[x for k, v in params.items() for x in (f"--{k}", v)]]
    for extra in ([], ["--block-size", "64"]):
        proc = _run(program, *args, *extra)
        assert proc.returncode == 0, proc.stderr
        assert compare_results(want, parse_results(proc.stdout)) == [], extra


SHAPE_KERNEL = """__kernel void shape(__global long *out) {
    if (get_global_id(0) == 0) { out[0] = get_global_size(0); out[1] = get_local_size(0); }
}
"""
SHAPE_DRIVER = r"""#include <cstdio>
#include "starc_runtime.hpp"
#include "starc_opencl_host.hpp"
int main(int argc, char** argv) {
  starc::CommandLine cl(argc, argv, {}, "shape");
  starc_opencl device = starc_open_device(cl, "shape.cl", {}, "test");
  starc_kernel kernel = starc_create_kernel(device, "shape", starc_block_size(cl, 256), "test");
  cl_mem out = starc_malloc<long long>(device, 2, "out", "test");
  starc_set_arg(kernel, 0, out, "test");
  for (long long count : {1000LL, 100000LL}) {
    long long got[2];
    for (std::size_t run : {STARC_RUN_ITEMS, STARC_UNIFORM_RUN_ITEMS}) {
      starc_launch(device, kernel, count, "test", run);
      starc_copy_to_host<long long>(device, got, out, 2, "test");
      std::printf("%d %zu %lld %lld %lld %zu\n", device.runs ? 1 : 0, device.units, count, got[0], got[1],
                  run);
    }
  }
}
"""


def _build_driver(tmp_path, name: str, driver: str) -> None:
    """``tmp_path/name``: a C++ ``driver`` on the OpenCL host runtime, with ``shape.cl``."""
    if not OpenCLBackend().availability().can_build:
        pytest.skip("cannot build OpenCL programs here (g++ or the OpenCL headers missing)")
    for file, text in runtime_files(*HOST_HEADERS).items():
        (tmp_path / file).write_text(text)
    (tmp_path / "shape.cl").write_text(SHAPE_KERNEL)
    (tmp_path / f"{name}.cpp").write_text(driver)
    subprocess.run(["g++", "-std=c++17", "-O1", f"-I{tmp_path}", f"{name}.cpp", "-o", name,
                    "-lOpenCL"], cwd=tmp_path, check=True)


def test_launch_shape_runs_of_items_on_a_cpu_and_work_groups_with_block_size(graph, tmp_path):
    """starc_launch's NDRange: on PoCL's CPU device without --block-size, work-groups of one
    and at most 64 items per work item (at least 16 work items per compute unit), 1024 for a
    kernel of uniform items (STARC_UNIFORM_RUN_ITEMS); with --block-size, one work item per
    item rounded up to whole work-groups, whatever the runs asked."""
    _build_driver(tmp_path, "shape", SHAPE_DRIVER)

    def shapes(*extra):
        proc = _run(tmp_path / "shape", graph, "--device", "cpu", *extra)
        assert proc.returncode == 0, proc.stderr
        return [tuple(int(x) for x in line.split()) for line in proc.stdout.splitlines()]

    got = shapes()
    assert sorted({run for *_, run in got}) == [64, 1024]
    for runs, units, count, items, group, run in got:
        assert runs == 1 and group == 1
        assert items == min(count, max(-(-count // run), 16 * units))
        assert -(-count // items) <= run
    # 100000 items: 1563 work items in runs of 64, 98 (at least 16 per unit) in runs of 1024
    assert len({items for *_, count, items, _, _ in got if count == 100000}) == 2
    for runs, _, count, items, group, _ in shapes("--block-size", "32"):
        assert (runs, group, items) == (0, 32, -(-count // 32) * 32)


DIVISION_DRIVER = r"""#include <cstdio>
#include "starc_runtime.hpp"
#include "starc_opencl_host.hpp"
int main(int argc, char** argv) {
  starc::CommandLine cl(argc, argv, {}, "division");
  starc_opencl device = starc_open_device(cl, "shape.cl", {}, "test");
  cl_device_fp_config single = 0;
  clGetDeviceInfo(device.device, CL_DEVICE_SINGLE_FP_CONFIG, sizeof single, &single, nullptr);
  auto options = [&device](cl_program program, cl_program_build_info info, std::size_t size,
                           void* value, std::size_t* returned) {
    return clGetProgramBuildInfo(program, device.device, info, size, value, returned);
  };
  std::printf("%d [%s]\n", (single & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) ? 1 : 0,
              starc_cl_info(options, device.program.get(), CL_PROGRAM_BUILD_OPTIONS).c_str());
}
"""


def test_kernels_divide_floats_correctly_rounded_where_the_device_can(graph, tmp_path):
    """OpenCL C lets a float '/' be 2.5 ulp off (NVIDIA's is: two float results differed in
    the last bits on an H100); the kernels are built with -cl-fp32-correctly-rounded-divide-sqrt
    wherever the device reports it can, as C, CUDA and the reference divide."""
    _build_driver(tmp_path, "division", DIVISION_DRIVER)
    proc = _run(tmp_path / "division", graph)
    assert proc.returncode == 0, proc.stderr
    capable, options = proc.stdout.split(" ", 1)
    flag = "-cl-fp32-correctly-rounded-divide-sqrt"
    assert (flag in options) == (capable == "1"), proc.stdout


def test_host_control_flow_and_single_item_kernels(graph, tmp_path):
    """Host loops with continue/break/return, a host edge test (the host's
    starc_find_edge), minWt/maxWt and a sequential node loop run as one work item."""
    path = ROOT / "tests" / "backends" / "cuda" / "programs" / "host.sp"
    comp = compile_text(path.read_text(), str(path))
    program = build(comp.generated, tmp_path)
    for params in ({"limit": "3", "seeds": "0,2,5"}, {"limit": "20", "seeds": "1"},
                   {"limit": "0", "seeds": ""}):
        argv = [graph] + [word for key, value in params.items() for word in (f"--{key}", value)]
        proc = _run(program, *argv)
        assert proc.returncode == 0, proc.stderr
        assert compare_results(_reference(comp, graph, params), parse_results(proc.stdout)) \
            == [], params


def test_empty_graph(tmp_path):
    empty = tmp_path / "empty.el"
    empty.write_text("# no edges, no vertices\n")
    comp = compile_dsl("cc")
    proc = _run(build(comp.generated, tmp_path / "cc"), empty)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"# starc results: Compute_CC backend=opencl graph={empty}\n"


# edges, hi (Max) and down (-=) are exclusive: one private per work item, one atomic each;
# x is not (+= and -= on it), so it keeps one atomic per update.
MIXED_REDUCTIONS = """
function Mixed(Graph g) {
    long edges = 0;
    int x = 0;
    int hi = 0;
    int down = 100;
    forall (v in g.nodes()) {
        forall (w in g.neighbors(v)) {
            edges += 1;
            x += 1;
            if (w < v) {
                x -= 2;
            }
            hi = Max(hi, w);
            down -= 1;
        }
    }
    return edges * 1000000 + x * 1000 + hi + down;
}
"""


def test_exclusive_and_shared_scalar_reductions_match_the_reference(graph, tmp_path):
    from starc.graphs import rmat, uniform, write_edge_list
    comp = compile_text(MIXED_REDUCTIONS, "mixed.sp")
    kernels = comp.generated.files["mixed.cl"].split("// --- kernels")[1]
    # the kernel and its variant for lockstep devices (one work item per edge): one each
    each = kernels.split("__kernel void ")[1:]
    assert [k.split("(")[0] for k in each] == ["Mixed_forall_7", "Mixed_forall_7_lockstep"]
    for name, op in (("edges", "add_long"), ("hi", "max_int"), ("down", "sub_int")):
        assert [k.count(f"starc_atomic_{op}(&{name}_dev[0], {name}_local);")
                for k in each] == [1, 1]
    assert "starc_atomic_add_int(&x_dev[0], 1);  // mixed.sp:10" in kernels
    assert "starc_atomic_sub_int(&x_dev[0], 2);  // mixed.sp:12" in kernels
    program = build(comp.generated, tmp_path / "mixed")
    graphs = [graph]
    for name, generated in (("rmat", rmat(6, 4, seed=7, weights=True)),
                            ("uniform", uniform(60, 3, seed=2, weights=True))):
        graphs.append(tmp_path / f"{name}.el")
        write_edge_list(generated, graphs[-1])
    for path in graphs:
        proc = _run(program, path)
        assert proc.returncode == 0, proc.stderr
        assert compare_results(_reference(comp, path, {}), parse_results(proc.stdout)) == [], \
            path.name


@pytest.mark.parametrize("name", sorted(p.stem for p in (ROOT / "dsl").glob("*.sp")))
def test_dsl_hosts_compile_without_warnings(name, tmp_path):
    """The generated host is warning-free C++ (-Wall -Wextra), as the SYCL and CUDA ones."""
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("g++ not found")
    generated = compile_dsl(name).generated
    generated.write(tmp_path)
    proc = subprocess.run([gxx, "-std=c++17", "-fsyntax-only", "-Wall", "-Wextra", "-Werror",
                           generated.main], capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
