#!/usr/bin/env bash
# Gathers, on a machine with internet, what bench/gpu.sh needs on a lent GPU machine that cannot
# download anything: starc's pure-Python dependencies the GPU image lacks (ply, mako and
# MarkupSafe as wheels), GAPBS's sources (built there by gpu.sh), the OpenCL headers and ICD
# loader (NVIDIA images ship the driver's library, not the headers generated programs include),
# and the dsl programs built for OpenACC on the GPU with g++'s nvptx offload compiler.
# Everything goes into .gpu-bundle/ (git-ignored, about 3 MB); name it in the device run's
# carry list, and gpu.sh uses it where the machine lacks these (see bench/README.md).
#
#   bash bench/gpu_bundle.sh GAPBS      # GAPBS: a checkout, or a git directory (a bare mirror)
set -euo pipefail
cd "$(dirname "$0")/.."
gapbs=${1:?usage: bench/gpu_bundle.sh GAPBS_CHECKOUT_OR_GIT_DIR}
bundle=.gpu-bundle
rm -rf "$bundle"
mkdir -p "$bundle/wheels" "$bundle/gapbs" "$bundle/opencl/include" "$bundle/opencl/lib"

# ply and mako are pure Python; MarkupSafe (mako's dependency) has a compiled speed-up, so one
# wheel per CPython the GPU image may have.
pip download -q --no-deps -d "$bundle/wheels" "ply==3.11" "mako>=1.2"
for version in 3.10 3.11 3.12 3.13; do
  pip download -q --no-deps --only-binary=:all: --python-version "$version" \
    --platform manylinux2014_x86_64 -d "$bundle/wheels" "markupsafe>=2.0"
done

if [ -d "$gapbs/src" ]; then
  (cd "$gapbs" && git ls-files -z 2>/dev/null || find . -type f -print0) |
    (cd "$gapbs" && xargs -0 tar -c) | tar -x -C "$bundle/gapbs"
else
  git --git-dir="$gapbs" archive HEAD | tar -x -C "$bundle/gapbs"
fi
[ -f "$bundle/gapbs/Makefile" ] || { echo "bench/gpu_bundle.sh: no GAPBS Makefile in $gapbs" >&2; exit 2; }

header=$(echo '#include <CL/cl.h>' | cpp -H -o /dev/null 2>&1 | sed -n 's/^\. //p' | head -n1)
[ -n "$header" ] || { echo "bench/gpu_bundle.sh: no CL/cl.h here (apt-get install opencl-headers)" >&2; exit 2; }
cp -r "$(dirname "$header")" "$bundle/opencl/include/"
loader=$(g++ -print-file-name=libOpenCL.so)
[ -f "$loader" ] || { echo "bench/gpu_bundle.sh: no libOpenCL.so here (apt-get install ocl-icd-opencl-dev)" >&2; exit 2; }
cp -L "$loader" "$bundle/opencl/lib/libOpenCL.so"
cp -L "$loader" "$bundle/opencl/lib/libOpenCL.so.1"
# OpenACC offloaded to the GPU (issue 29, item 6): the GPU image has no g++ nvptx offload
# compiler, so the six programs are built here, once with the auto schedule and once binned (a
# vertex's edges over its gang's vector lanes), and run there by wrappers that put this
# machine's libgomp and its nvptx plugin (which loads the driver's libcuda) on their library
# path only, so the baselines keep the GPU machine's own libgomp. ACC_DEVICE_TYPE=nvidia makes
# a failed offload an error rather than a silent run on the host.
python=${PYTHON:-python3}
if "$python" -c "import sys; from starc.backends.openacc.toolchain import nvptx_offload
sys.exit(0 if nvptx_offload()[0] else 1)" 2>/dev/null; then
  acc=$bundle/openacc
  mkdir -p "$acc/lib" "$acc/programs"
  libgomp=$(g++ -print-file-name=libgomp.so.1)
  cp -L "$libgomp" "$acc/lib/libgomp.so.1"
  cp -L "$(dirname "$(readlink -f "$libgomp")")/libgomp-plugin-nvptx.so.1" "$acc/lib/"
  git rev-parse --short HEAD > "$acc/commit" 2>/dev/null || echo unknown > "$acc/commit"
  for schedule in auto binned; do
    mkdir -p "$acc/$schedule"
    for algo in pr sssp tc bc bfs cc; do
      work=$(mktemp -d)
      "$python" -m starc build "dsl/$algo.sp" -b openacc --openacc-target nvptx \
        --schedule "$schedule" -o "$work" >/dev/null
      cp "$work/$algo" "$acc/programs/$algo-$schedule"
      rm -rf "$work"
      cat > "$acc/$schedule/$algo" <<WRAPPER
#!/bin/sh
acc=\$(cd "\$(dirname "\$0")/.." && pwd)
LD_LIBRARY_PATH="\$acc/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" ACC_DEVICE_TYPE=nvidia \\
  exec "\$acc/programs/$algo-$schedule" "\$@"
WRAPPER
      chmod +x "$acc/$schedule/$algo"
    done
  done
else
  echo "bench/gpu_bundle.sh: g++ cannot offload to nvptx here (Debian: gcc-12-offload-nvptx):" \
    "no OpenACC programs for the GPU" >&2
fi

du -sh "$bundle"
echo "bench/gpu_bundle.sh: carry '$bundle' to the GPU machine; bench/gpu.sh finds it there"
