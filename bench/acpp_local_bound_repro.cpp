// AdaptiveCpp 24.06 miscompiles this race-free kernel on its default CPU target: why SYCL's
// capabilities keep cooperative bodies off (starc/backends/sycl/kernels.py, issue 29).
//
// One work-group of 64: the first item writes a local int (0), all meet at a barrier, the first
// item writes it again (1), all meet at a barrier, then every item runs a loop bounded by that
// local int around a strided count of 1000. Each of the 1000 steps is counted once: 1000. It is
// the shape of a binned kernel's heavy-vertex loop (the group's count of heavy vertices in local
// memory, reset by the first item, then bumped before the barrier the loop starts after).
//
//   acpp -O2 bench/acpp_local_bound_repro.cpp -o repro && ./repro        # generic: 0 (wrong)
//   acpp --acpp-targets=omp.library-only -O2 ... && ./repro            # fibers: 1000 (right)
//
// Measured with AdaptiveCpp 24.06.0 (LLVM 16) on x86-64: `generic` (SSCP, CPU JIT) prints 0 at -O0
// and -O2, with ACPP_ADAPTIVITY_LEVEL 0 and 2; `omp` (omp.accelerated) and
// `omp.library-only` print 1000. The same shape of kernel that generated bfs prints goes wrong on
// both `generic` (a crash) and `omp` (no vertex past the first level), and is right on
// `omp.library-only`. Upstream reports of the same kind (a local value read in a loop across
// barriers, in the CBS transformation that sscp.omp and omp.accelerated share): AdaptiveCpp
// issues 2137 and 2177.
//
// What changes the answer on `generic`: right with one store, or a second store by every item,
// or the first store by every item (a relaxed atomic store keeps that race-free), or the local int
// read inside the loop rather than as its bound; still 0 with the second store a conditional
// local fetch_add (bfs's heavy count), the bound copied to a private int first, or read by an
// atomic load. Rewriting bfs's three first-item resets (heavy count, first finder, branch) as
// every item's atomic store fixes this program but not bfs: `generic` then gives wrong levels
// instead of crashing and `omp` crashes, so no workaround on starc's side is known.
#include <sycl/sycl.hpp>
#include <cstdio>

int main() {
  constexpr int group = 64, work = 1000;
  sycl::queue q;
  int* total = sycl::malloc_shared<int>(1, q);
  *total = 0;
  q.submit([&](sycl::handler& h) {
    sycl::local_accessor<int, 1> bound(sycl::range<1>(1), h);
    h.parallel_for(sycl::nd_range<1>(group, group), [=](sycl::nd_item<1> it) {
      const int lane = static_cast<int>(it.get_local_id(0));
      int mine = 0;
      if (lane == 0) bound[0] = 0;
      sycl::group_barrier(it.get_group());
      if (lane == 0) bound[0] = 1;
      sycl::group_barrier(it.get_group());
      for (int next = 0; next < bound[0]; next++)
        for (int step = lane; step < work; step += group) mine += 1;
      sycl::atomic_ref<int, sycl::memory_order::relaxed, sycl::memory_scope::device,
                       sycl::access::address_space::global_space>(*total).fetch_add(mine);
    });
  }).wait();
  std::printf("counted %d of %d steps\n", *total, work);
  const bool right = *total == work;
  sycl::free(total, q);
  return right ? 0 : 1;
}
