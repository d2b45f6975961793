// starc OpenCL runtime prelude (OpenCL C 1.2): the helper API every starc backend defines
// under the same names (starc_atomic_<op>_<type>, starc_lock_try/release, starc_find_edge).
// The generated program defines STARC_FP64, STARC_INT64_BASE_ATOMICS and
// STARC_INT64_EXTENDED_ATOMICS before this prelude only when its kernels need them, so a
// device without those extensions still builds every program that does not use them.

// Keep a*b+c as two roundings, as C on the host (and the reference executor) computes it.
#pragma OPENCL FP_CONTRACT OFF

#ifdef STARC_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#ifdef STARC_INT64_BASE_ATOMICS
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#endif
#ifdef STARC_INT64_EXTENDED_ATOMICS
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
#endif

// --- 32-bit integers: native atomics ----------------------------------------------------------

inline int starc_atomic_add_int(volatile __global int *p, int v) { return atomic_add(p, v); }
inline int starc_atomic_sub_int(volatile __global int *p, int v) { return atomic_sub(p, v); }
inline int starc_atomic_min_int(volatile __global int *p, int v) { return atomic_min(p, v); }
inline int starc_atomic_max_int(volatile __global int *p, int v) { return atomic_max(p, v); }
inline int starc_atomic_and_int(volatile __global int *p, int v) { return atomic_and(p, v); }
inline int starc_atomic_or_int(volatile __global int *p, int v) { return atomic_or(p, v); }

inline int starc_atomic_mul_int(volatile __global int *p, int v) {
    int old = *p;
    for (;;) {
        // Multiply as unsigned: wraps like the host's int arithmetic, without UB.
        int seen = atomic_cmpxchg(p, old, (int)((uint)old * (uint)v));
        if (seen == old) return old;
        old = seen;
    }
}

// --- 32-bit floats: compare-and-swap loops on the bit pattern -----------------------------

inline float starc_atomic_add_float(volatile __global float *p, float v) {
    volatile __global int *bits = (volatile __global int *)p;
    int old = *bits;
    for (;;) {
        int seen = atomic_cmpxchg(bits, old, as_int(as_float(old) + v));
        if (seen == old) return as_float(old);
        old = seen;
    }
}

inline float starc_atomic_sub_float(volatile __global float *p, float v) {
    volatile __global int *bits = (volatile __global int *)p;
    int old = *bits;
    for (;;) {
        int seen = atomic_cmpxchg(bits, old, as_int(as_float(old) - v));
        if (seen == old) return as_float(old);
        old = seen;
    }
}

inline float starc_atomic_mul_float(volatile __global float *p, float v) {
    volatile __global int *bits = (volatile __global int *)p;
    int old = *bits;
    for (;;) {
        int seen = atomic_cmpxchg(bits, old, as_int(as_float(old) * v));
        if (seen == old) return as_float(old);
        old = seen;
    }
}

// Min/Max return the old value; the update happened iff v beats it. No write when it does not.
inline float starc_atomic_min_float(volatile __global float *p, float v) {
    volatile __global int *bits = (volatile __global int *)p;
    int old = *bits;
    while (v < as_float(old)) {
        int seen = atomic_cmpxchg(bits, old, as_int(v));
        if (seen == old) break;
        old = seen;
    }
    return as_float(old);
}

inline float starc_atomic_max_float(volatile __global float *p, float v) {
    volatile __global int *bits = (volatile __global int *)p;
    int old = *bits;
    while (v > as_float(old)) {
        int seen = atomic_cmpxchg(bits, old, as_int(v));
        if (seen == old) break;
        old = seen;
    }
    return as_float(old);
}

// --- 64-bit integers: atom_* from cl_khr_int64_{base,extended}_atomics ------------------------

#ifdef STARC_INT64_BASE_ATOMICS
inline long starc_atomic_add_long(volatile __global long *p, long v) { return atom_add(p, v); }
inline long starc_atomic_sub_long(volatile __global long *p, long v) { return atom_sub(p, v); }

inline long starc_atomic_mul_long(volatile __global long *p, long v) {
    long old = *p;
    for (;;) {
        long seen = atom_cmpxchg(p, old, (long)((ulong)old * (ulong)v));
        if (seen == old) return old;
        old = seen;
    }
}
#endif

#ifdef STARC_INT64_EXTENDED_ATOMICS
inline long starc_atomic_min_long(volatile __global long *p, long v) { return atom_min(p, v); }
inline long starc_atomic_max_long(volatile __global long *p, long v) { return atom_max(p, v); }
inline long starc_atomic_and_long(volatile __global long *p, long v) { return atom_and(p, v); }
inline long starc_atomic_or_long(volatile __global long *p, long v) { return atom_or(p, v); }
#endif

// --- doubles: compare-and-swap loops on the 64-bit pattern -----------------------------------

#if defined(STARC_FP64) && defined(STARC_INT64_BASE_ATOMICS)
inline double starc_atomic_add_double(volatile __global double *p, double v) {
    volatile __global long *bits = (volatile __global long *)p;
    long old = *bits;
    for (;;) {
        long seen = atom_cmpxchg(bits, old, as_long(as_double(old) + v));
        if (seen == old) return as_double(old);
        old = seen;
    }
}

inline double starc_atomic_sub_double(volatile __global double *p, double v) {
    volatile __global long *bits = (volatile __global long *)p;
    long old = *bits;
    for (;;) {
        long seen = atom_cmpxchg(bits, old, as_long(as_double(old) - v));
        if (seen == old) return as_double(old);
        old = seen;
    }
}

inline double starc_atomic_mul_double(volatile __global double *p, double v) {
    volatile __global long *bits = (volatile __global long *)p;
    long old = *bits;
    for (;;) {
        long seen = atom_cmpxchg(bits, old, as_long(as_double(old) * v));
        if (seen == old) return as_double(old);
        old = seen;
    }
}

inline double starc_atomic_min_double(volatile __global double *p, double v) {
    volatile __global long *bits = (volatile __global long *)p;
    long old = *bits;
    while (v < as_double(old)) {
        long seen = atom_cmpxchg(bits, old, as_long(v));
        if (seen == old) break;
        old = seen;
    }
    return as_double(old);
}

inline double starc_atomic_max_double(volatile __global double *p, double v) {
    volatile __global long *bits = (volatile __global long *)p;
    long old = *bits;
    while (v > as_double(old)) {
        long seen = atom_cmpxchg(bits, old, as_long(v));
        if (seen == old) break;
        old = seen;
    }
    return as_double(old);
}
#endif

// --- per-element locks (Min/Max with secondary targets) ---------------------------------------

inline bool starc_lock_try(volatile __global int *lock) {
    return atomic_cmpxchg(lock, 0, 1) == 0;
}

inline void starc_lock_release(volatile __global int *lock) {
    mem_fence(CLK_GLOBAL_MEM_FENCE);   // the protected stores are visible before the release
    atomic_xchg(lock, 0);
}

// --- graph queries ----------------------------------------------------------------------------

// The first edge u -> w (lowest edge id), or -1: a binary search of u's sorted adjacency.
inline int starc_find_edge(__global const int *offsets, __global const int *targets,
                           int u, int w) {
    int lo = offsets[u], hi = offsets[u + 1];
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (targets[mid] < w) lo = mid + 1; else hi = mid;
    }
    return (lo < offsets[u + 1] && targets[lo] == w) ? lo : -1;
}
