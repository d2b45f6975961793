#!/usr/bin/env bash
# Gathers, on a machine with internet, what bench/gpu.sh needs on a lent GPU machine that cannot
# download anything: starc's pure-Python dependencies the GPU image lacks (ply, mako and
# MarkupSafe as wheels), GAPBS's sources (built there by gpu.sh) and the OpenCL headers and ICD
# loader (NVIDIA images ship the driver's library, not the headers generated programs include).
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
du -sh "$bundle"
echo "bench/gpu_bundle.sh: carry '$bundle' to the GPU machine; bench/gpu.sh finds it there"
