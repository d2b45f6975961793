#!/usr/bin/env bash
# The GPU campaign (issue 29, item 6): run on a machine with an NVIDIA GPU, one phase per
# command (each well under 10 minutes), and append what it measured to bench/RESULTS.md with
# the GPU's name. Needs nvcc, python with starc's test dependencies (pip install -e ".[test]"),
# and for the GAPBS columns a GAPBS checkout in $GAPBS_ROOT (built here with make when its
# binaries are missing: the GPU machine cannot download it).
#
#   bash bench/gpu.sh tests            # pytest -m gpu: every CUDA test that needs the GPU
#   bash bench/gpu.sh cuda [SCALES]    # CUDA (auto schedule and --schedule vertex) against the
#                                      # OpenMP baselines and GAPBS on all CPU cores (default 20)
#   bash bench/gpu.sh opencl [SCALES]  # OpenCL on the machine's first OpenCL device (NVIDIA's
#                                      # where its ICD is installed)
#   bash bench/gpu.sh openacc [SCALES] # OpenACC offloaded by g++'s nvptx compiler (auto and
#                                      # binned schedules), programs built by gpu_bundle.sh
#   bash bench/gpu.sh dynamic [SCALES] # CUDA's dynamic programs: a batch of 0.1% of the edges
#                                      # against the static run (issue 31: pass 18, its scale)
#   bash bench/gpu.sh mpi [SCALES]     # MPI strong scaling on the host's cores: 1, 2, 4, ...
#                                      # ranks x 1 thread up to nproc (issue 30)
#   bash bench/gpu.sh mpi-split [SCALES] # bfs, sssp, cc on nproc ranks x 1 thread with --stats:
#                                      # each rank's kernels / runtime / MPI calls (issue 30)
#   bash bench/gpu.sh all [SCALES]     # cuda, tests, opencl, openacc, mpi in that order, each given
#                                      # what is left of $GPU_DEADLINE_S seconds (default 780)
#                                      # less a reserve for the phases after it
#
# Time on an H100 host (16 cores, 2026-11-26): cuda at scale 20 about 45-70 s per algorithm
# (the first of each graph variant generates it), tests about 2.5 min, opencl about 50 s per
# algorithm. A lease of 15 minutes fits cuda and tests; pass --algos to split a phase.
#
# On a machine that cannot download, run bench/gpu_bundle.sh beforehand and carry .gpu-bundle/.
#
# Extra arguments after SCALES go to pytest (tests) or bench/harness.py (the others). Outputs go
# to $GPU_OUT (default bench/out/gpu); $PYTHON names the interpreter (default python3).
#
# The ratio in each cell is the GPU time over the CPU baseline's on the same machine: below 1
# the GPU is faster. The cuda phase measures both schedules side by side, so RESULTS.md shows
# what one work item per edge buys over one per vertex on that GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
phase=${1:?usage: bench/gpu.sh tests|cuda|opencl|openacc|dynamic|mpi|mpi-split [SCALES] [ARGS...]}
scales=${2:-20}
shift $(( $# > 1 ? 2 : 1 ))
out=${GPU_OUT:-bench/out/gpu}
python=${PYTHON:-python3}
threads=$(nproc)
mkdir -p "$out"
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n1 || true)
if [ -z "$gpu" ]; then
  echo "bench/gpu.sh: no NVIDIA GPU here (nvidia-smi lists none)" >&2
  exit 2
fi
# What bench/gpu_bundle.sh gathered for a machine that cannot download (.gpu-bundle/): the
# Python wheels starc needs where the image lacks them, GAPBS's sources where no GAPBS_ROOT is
# given (built outside the tree), the OpenCL headers and loader where the image has none.
bundle=$PWD/.gpu-bundle
if [ -d "$bundle" ]; then
  if ! "$python" -c "import ply, mako" 2>/dev/null; then
    site=${TMPDIR:-/tmp}/starc-gpu-site
    "$python" -m pip install -q --no-index --find-links "$bundle/wheels" --target "$site" \
      "ply==3.11" mako
    export PYTHONPATH="$site:$PWD${PYTHONPATH:+:$PYTHONPATH}"
  fi
  if [ -z "${GAPBS_ROOT:-}" ] && [ -d "$bundle/gapbs" ]; then
    GAPBS_ROOT=${TMPDIR:-/tmp}/starc-gpu-gapbs
    [ -d "$GAPBS_ROOT" ] || cp -r "$bundle/gapbs" "$GAPBS_ROOT"
  fi
  if ! echo '#include <CL/cl.h>' | cpp -o /dev/null 2>/dev/null; then
    export CPATH="$bundle/opencl/include${CPATH:+:$CPATH}"
    export LIBRARY_PATH="$bundle/opencl/lib${LIBRARY_PATH:+:$LIBRARY_PATH}"
    export LD_LIBRARY_PATH="$bundle/opencl/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  fi
fi
gapbs=()
if [ -n "${GAPBS_ROOT:-}" ]; then
  [ -x "$GAPBS_ROOT/bfs" ] || make -C "$GAPBS_ROOT" -j"$threads" >/dev/null
  gapbs=(--gapbs "$GAPBS_ROOT")
fi

record() {   # append the harness's table to bench/RESULTS.md, headed by the machine
  local title=$1 table=$2
  {
    echo
    echo "## $title: $gpu, $(date -u +%Y-%m-%d)"
    echo
    echo "- **Machine**: $gpu; $threads CPU cores ($(lscpu | sed -n 's/^Model name: *//p' | head -n1));"
    echo "  $(nvcc --version | tail -n1); starc $(git rev-parse --short HEAD)."
    echo "- **Command**: \`bash bench/gpu.sh $phase $scales\` (bench/harness.py, median of 3 trials in"
    echo "  one process; baselines and GAPBS on all $threads cores)."
    echo
    cat "$table"
  } >> bench/RESULTS.md
  echo "bench/gpu.sh: appended to bench/RESULTS.md"
}

# NVIDIA's OpenCL library without its ICD file (a container image): register it, so the
# opencl phase runs on the GPU rather than on whatever other OpenCL driver is installed.
register_nvidia_opencl() {
  local lib
  lib=$(find /usr/lib /usr/lib64 /usr/local/nvidia -name 'libnvidia-opencl.so*' 2>/dev/null | head -n1)
  if [ -n "$lib" ] && ! grep -qs nvidia /etc/OpenCL/vendors/*.icd && [ -w /etc ]; then
    mkdir -p /etc/OpenCL/vendors && echo "$lib" > /etc/OpenCL/vendors/nvidia.icd
    echo "bench/gpu.sh: registered $lib as an OpenCL ICD"
  fi
}

case "$phase" in
  all)
    deadline=$(( $(date +%s) + ${GPU_DEADLINE_S:-780} ))
    register_nvidia_opencl
    # phase and the seconds kept for the phases after it
    for step in "cuda 390" "tests 230" "opencl 140" "openacc 60" "mpi 5"; do
      set -- $step
      left=$(( deadline - $(date +%s) - $2 ))
      if [ "$left" -lt 30 ]; then echo "bench/gpu.sh: no time left for $1"; continue; fi
      echo "== bench/gpu.sh $1 $scales: ${left} s"
      timeout "$left" bash "$0" "$1" "$scales" || echo "bench/gpu.sh: $1 stopped (status $?)"
    done
    ;;
  tests)
    "$python" -m pytest -m gpu -n "$threads" -q "$@"
    ;;
  cuda)
    # shellcheck disable=SC2086
    "$python" bench/harness.py --scales $scales --kinds rmat --algos pr sssp tc bc bfs cc \
      --backends cuda cuda:vertex --threads "$threads" --repeat 3 --reference-max-scale 0 \
      "${gapbs[@]}" --out "$out/cuda" "$@" | tee "$out-cuda.log"
    sed -n '/^| graph /,/^$/p' "$out-cuda.log" > "$out-cuda.md"
    record "CUDA, auto schedule and one work item per vertex" "$out-cuda.md"
    ;;
  opencl)
    # shellcheck disable=SC2086
    "$python" bench/harness.py --scales $scales --kinds rmat --algos pr sssp tc bc bfs cc \
      --backends opencl opencl:edges --threads "$threads" --repeat 3 \
      --reference-max-scale 0 "${gapbs[@]}" --out "$out/opencl" "$@" | tee "$out-opencl.log"
    sed -n '/^| graph /,/^$/p' "$out-opencl.log" > "$out-opencl.md"
    record "OpenCL on the first OpenCL device" "$out-opencl.md"
    ;;
  openacc)
    # The image has no g++ nvptx offload compiler: the programs (and the libgomp that runs
    # them) come from bench/gpu_bundle.sh, built from the commit it records.
    acc=$bundle/openacc
    if [ ! -x "$acc/auto/pr" ]; then
      echo "bench/gpu.sh: no OpenACC programs in $acc (bench/gpu_bundle.sh builds them where" \
        "g++ can offload to nvptx)" >&2
      exit 2
    fi
    # shellcheck disable=SC2086
    "$python" bench/harness.py --scales $scales --kinds rmat --algos pr sssp tc bc bfs cc \
      --backends openacc openacc:binned --prebuilt "openacc=$acc/auto" \
      --prebuilt "openacc:binned=$acc/binned" --threads "$threads" --repeat 3 \
      --reference-max-scale 0 "${gapbs[@]}" --out "$out/openacc" "$@" | tee "$out-openacc.log"
    sed -n '/^| graph /,/^$/p' "$out-openacc.log" > "$out-openacc.md"
    record "OpenACC offloaded by g++ to nvptx (built at $(cat "$acc/commit")), auto and binned" \
      "$out-openacc.md"
    ;;
  dynamic)
    # dsl/dynamic/dyn_{sssp,pr,tc}.sp on CUDA: static part, whole batch, its graph update
    # (starc-update-time) and the algorithm's part (starc-batch-time less the update, the
    # same trial) against issue 31's goals
    for scale in $scales; do
      "$python" bench/dynamic_batches.py --backend cuda --scale "$scale" --trials 3 "$@"
    done | tee "$out-dynamic.log"
    grep -E '^(cuda|\|)' "$out-dynamic.log" > "$out-dynamic.md"
    record "CUDA's dynamic programs: a batch against the static run" "$out-dynamic.md"
    ;;
  mpi)
    ranks=(1); while [ $(( ranks[-1] * 2 )) -le "$threads" ]; do ranks+=($(( ranks[-1] * 2 ))); done
    # shellcheck disable=SC2086
    "$python" bench/harness.py --scales $scales --kinds rmat --algos pr sssp tc bc bfs cc \
      --backends mpi --mpi-ranks "${ranks[@]}" --threads 1 --repeat 3 \
      --reference-max-scale 0 "${gapbs[@]}" --out "$out/mpi" "$@" | tee "$out-mpi.log"
    sed -n '/^| graph /,/^$/p' "$out-mpi.log" > "$out-mpi.md"
    record "MPI strong scaling on the host's CPU cores, ${ranks[*]} ranks x 1 thread" "$out-mpi.md"
    ;;
  mpi-split)
    # Where a superstep's time goes at the most ranks (--stats: kernel_us, runtime_us, mpi_us
    # per rank, summed over 10 trials, the first included), on the harness's own graphs of
    # the first scale.
    scale=${scales%% *}
    graph() {   # the harness's graph of that variant (generated once): its path and source
      "$python" -c "import pathlib, sys; sys.path.insert(0, 'bench'); import workloads
g = workloads.generate_graph('rmat', $scale, '$1', pathlib.Path('$out/mpi')); print(g.path, g.src)"
    }
    read -r sym sym_src < <(graph symmetric)
    read -r wtd wtd_src < <(graph weighted)
    for run in "bfs $sym --undirected --src $sym_src" "cc $sym --undirected" "sssp $wtd --src $wtd_src"; do
      set -- $run
      algo=$1; shift
      echo "== $algo, R-MAT $scale, $threads ranks x 1 thread"
      OMP_NUM_THREADS=1 "$python" -m starc run "dsl/$algo.sp" -b mpi --np "$threads" --graph "$@" \
        --time --trials 10 --stats --out /dev/null 2>&1 |
        grep -E "^starc-time|^starc-mpi-stats" | sed -E 's/starc-mpi-stats (rank=[0-9]+) .*(kernel_us=[0-9]+ runtime_us=[0-9]+ mpi_us=[0-9]+)/\1 \2/'
    done | tee "$out-mpi-split.log"
    { echo '```'; cat "$out-mpi-split.log"; echo '```'; } > "$out-mpi-split.md"
    record "MPI supersteps' time split on the host's CPU cores ($threads ranks x 1 thread)" "$out-mpi-split.md"
    ;;
  *)
    echo "bench/gpu.sh: unknown phase '$phase' (tests, cuda, opencl, openacc, dynamic, mpi or mpi-split)" >&2
    exit 2
    ;;
esac
