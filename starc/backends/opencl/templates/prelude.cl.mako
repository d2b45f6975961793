## The OpenCL C 1.2 prelude at the top of every generated kernel file (rendered by
## opencl/kernels.py prelude(); the shared blocks come from common/templates/device_helpers.mako).
// starc OpenCL runtime prelude (OpenCL C 1.2): the helper API every starc backend defines
// under the same names (starc_atomic_<op>_<type>, starc_lock_try/release, starc_find_edge,
// starc_lower_bound/upper_bound, starc_gallop). The atomic helpers are those the kernels below
// use; the extensions enabled are those they need (the host checks the device has them).

// Keep a*b+c as two roundings, as C on the host (and the reference executor) computes it.
#pragma OPENCL FP_CONTRACT OFF
% for extension in extensions:
#pragma OPENCL EXTENSION ${extension} : enable
% endfor

${atomic_helpers}

// --- per-element locks (Min/Max with secondary targets) ---------------------------------------

inline bool starc_lock_try(volatile __global int *lock) {
    return atomic_cmpxchg(lock, 0, 1) == 0;
}

inline void starc_lock_release(volatile __global int *lock) {
    mem_fence(CLK_GLOBAL_MEM_FENCE);   // the protected stores are visible before the release
    atomic_xchg(lock, 0);
}

% if staged_append:
// --- worklist appends staged per work-group -------------------------------------------------
// An append takes a slot in its work-group's queue in local memory (a local atomic); at the
// kernel's end the group's first item takes the group's slots in the worklist with one
// atomic and the items copy the entries there. Where the local queue is full, the append
// takes its own slot in the worklist at once. (STARC_LOCAL_QUEUE may be set lower before
// this point, as a test does, to force that.)
#ifndef ${local_queue}
#define ${local_queue} ${local_queue_default}
#endif

inline void starc_stage_append(__local int *staged, volatile __local int *count,
                               __global int *queue, volatile __global int *length, int value) {
    const int slot = *count < ${local_queue} ? atomic_inc(count) : ${local_queue};
    if (slot < ${local_queue}) staged[slot] = value;
    else queue[atomic_inc(length)] = value;
}

% endif
${run_time_checks}

${graph_queries}
