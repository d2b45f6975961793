"""The SYCL backend: standard SYCL 2020 (USM, one in-order queue) with a C++ host."""
