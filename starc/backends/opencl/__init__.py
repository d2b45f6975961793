"""The OpenCL backend: OpenCL C 1.2 kernels (run on PoCL anywhere) and a C++ host."""
