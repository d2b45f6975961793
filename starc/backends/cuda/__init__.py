"""The CUDA backend: generated CUDA C++ built with nvcc (runs where an NVIDIA GPU is)."""
