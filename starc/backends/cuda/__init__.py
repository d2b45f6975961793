"""The CUDA backend: ``__global__`` kernels and a C++ host on the CUDA runtime API (nvcc)."""

from starc.backends.base import BackendOption

#: the command-line options of this backend (the registry lists them for ``starc``)
GPU_ARCH = BackendOption("--gpu-arch", "CUDA architecture nvcc compiles for (default sm_75)",
                         default="sm_75", pattern=r"(sm|compute)_[1-9][0-9]{1,2}[a-z]?",
                         expects="a CUDA architecture such as sm_75, sm_90a or compute_80")
OPTIONS = (GPU_ARCH,)
