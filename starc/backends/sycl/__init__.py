"""The SYCL backend: SYCL 2020 kernels as lambdas and a C++ host on one in-order queue."""

from starc.backends.base import BackendOption

#: the command-line options of this backend (the registry lists them for ``starc``)
SYCL_COMPILER = BackendOption(
    "--sycl-compiler", "SYCL compiler command (default: first of acpp, icpx, clang++ found)")
OPTIONS = (SYCL_COMPILER,)
