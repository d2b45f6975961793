"""The OpenACC backend: kernels as ``parallel loop``s, arrays kept present on the device."""

from starc.backends.base import BackendOption

#: the command-line options of this backend (the registry lists them for ``starc``)
OPENACC_COMPILER = BackendOption(
    "--openacc-compiler",
    "OpenACC compiler command (default: nvc++ -acc if found, else g++ -fopenacc)",
    command=True)
OPENACC_TARGET = BackendOption(
    "--openacc-target",
    "where compute regions are compiled for: host (g++ -foffload=disable, nvc++ -acc=host), "
    "nvptx (NVIDIA GPUs: g++'s nvptx offload compiler, nvc++ -acc=gpu) or auto (default: "
    "nvptx when g++ can offload to it, else host; nvc++'s own default)",
    default="auto", pattern=r"host|nvptx|auto", expects="host, nvptx or auto")
OPTIONS = (OPENACC_COMPILER, OPENACC_TARGET)
