"""The OpenACC backend: kernels as ``parallel loop``s, arrays kept present on the device."""

from starc.backends.base import BackendOption

#: the command-line options of this backend (the registry lists them for ``starc``)
OPENACC_COMPILER = BackendOption(
    "--openacc-compiler",
    "OpenACC compiler command (default: nvc++ -acc if found, else g++ -fopenacc)",
    command=True)
OPTIONS = (OPENACC_COMPILER,)
