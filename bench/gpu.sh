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
#
# The ratio in each cell is the GPU time over the CPU baseline's on the same machine: below 1
# the GPU is faster. The cuda phase measures both schedules side by side, so RESULTS.md shows
# what one work item per edge buys over one per vertex on that GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
phase=${1:?usage: bench/gpu.sh tests|cuda|opencl [SCALES]}
scales=${2:-20}
out=${OUT:-bench/out/gpu}
threads=$(nproc)
mkdir -p "$out"
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n1 || true)
if [ -z "$gpu" ]; then
  echo "bench/gpu.sh: no NVIDIA GPU here (nvidia-smi lists none)" >&2
  exit 2
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

case "$phase" in
  tests)
    python -m pytest -m gpu -n "$threads" -q
    ;;
  cuda)
    # shellcheck disable=SC2086
    python bench/harness.py --scales $scales --kinds rmat --algos pr sssp tc bc bfs cc \
      --backends cuda cuda:vertex --threads "$threads" --repeat 3 --reference-max-scale 0 \
      "${gapbs[@]}" --out "$out/cuda" | tee "$out-cuda.log"
    sed -n '/^| graph /,/^$/p' "$out-cuda.log" > "$out-cuda.md"
    record "CUDA, auto schedule and one work item per vertex" "$out-cuda.md"
    ;;
  opencl)
    # shellcheck disable=SC2086
    python bench/harness.py --scales $scales --kinds rmat --algos pr sssp tc bc bfs cc \
      --backends opencl opencl:edges --threads "$threads" --repeat 3 \
      --reference-max-scale 0 "${gapbs[@]}" --out "$out/opencl" | tee "$out-opencl.log"
    sed -n '/^| graph /,/^$/p' "$out-opencl.log" > "$out-opencl.md"
    record "OpenCL on the first OpenCL device" "$out-opencl.md"
    ;;
  *)
    echo "bench/gpu.sh: unknown phase '$phase' (tests, cuda or opencl)" >&2
    exit 2
    ;;
esac
