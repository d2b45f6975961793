// starc OpenCL runtime prelude (OpenCL C 1.2): the helper API every starc backend defines
// under the same names (starc_atomic_<op>_<type>, starc_lock_try/release, starc_find_edge,
// starc_lower_bound/upper_bound, starc_gallop).
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

// --- run-time checks (starc/analysis/checks.py) -------------------------------------------------
// On failure a helper records its site (numbered from 1) in *err unless an earlier failure did
// (first writer wins: compare-exchange from 0), stores the offending value, and returns a safe
// value (index 0, quotient 0) so the kernel finishes; the host reports the site's message and
// prints no results. Signed overflow wraps: INT_MIN / -1 is INT_MIN and INT_MIN % -1 is 0.
inline void starc_raise(volatile __global int *err, __global long *err_value, int site, long value) {
    if (atomic_cmpxchg(err, 0, site) == 0) *err_value = value;
}

inline int starc_check_index(long i, int limit, volatile __global int *err, __global long *err_value, int site) {
    if (i >= 0 && i < limit) return (int)i;
    starc_raise(err, err_value, site, i);
    return 0;
}

inline int starc_div_int(int a, int b, volatile __global int *err, __global long *err_value, int site) {
    if (b == 0) { starc_raise(err, err_value, site, 0); return 0; }
    return b == -1 ? (int)(0u - (uint)a) : a / b;
}

inline int starc_mod_int(int a, int b, volatile __global int *err, __global long *err_value, int site) {
    if (b == 0) { starc_raise(err, err_value, site, 0); return 0; }
    return b == -1 ? 0 : a % b;
}

inline long starc_div_long(long a, long b, volatile __global int *err, __global long *err_value, int site) {
    if (b == 0) { starc_raise(err, err_value, site, 0); return 0; }
    return b == -1 ? (long)((ulong)0 - (ulong)a) : a / b;
}

inline long starc_mod_long(long a, long b, volatile __global int *err, __global long *err_value, int site) {
    if (b == 0) { starc_raise(err, err_value, site, 0); return 0; }
    return b == -1 ? 0 : a % b;
}

// --- graph queries ----------------------------------------------------------------------------

// Binary searches of a sorted run ids[begin, end) (a CSR row): the first position whose id is
// >= value (lower) / > value (upper), end if none. A neighbour loop filtered by u < c, u >= c
// ... iterates only the positions between such bounds.
inline int starc_lower_bound(__global const int *ids, int begin, int end, int value) {
    while (begin < end) {
        int mid = begin + (end - begin) / 2;
        if (ids[mid] < value) begin = mid + 1; else end = mid;
    }
    return begin;
}

inline int starc_upper_bound(__global const int *ids, int begin, int end, int value) {
    while (begin < end) {
        int mid = begin + (end - begin) / 2;
        if (ids[mid] <= value) begin = mid + 1; else end = mid;
    }
    return begin;
}

// The first edge u -> w (lowest edge id), or -1: a binary search of u's sorted adjacency.
inline int starc_find_edge(__global const int *offsets, __global const int *targets,
                           int u, int w) {
    int end = offsets[u + 1];
    int lo = starc_lower_bound(targets, offsets[u], end, w);
    return (lo < end && targets[lo] == w) ? lo : -1;
}

// find_edge for ascending w in the row [*cursor, end) of a sorted adjacency: moves *cursor to
// the first id >= w (galloping: cost log of the distance moved) and returns that position
// if it holds w, else -1. Every id before *cursor must be < w.
inline int starc_gallop(__global const int *ids, int *cursor, int end, int w) {
    int pos = *cursor;
    if (pos < end && ids[pos] < w) {
        // ids[pos] < w: probe ahead in doubling steps (1, 2, 4, ...) until an id >= w or the
        // end, then binary-search the last step.
        int step = 1;
        int next = pos + 1;
        while (next < end && ids[next] < w) {
            pos = next;
            if (step <= (end - pos) / 2) step *= 2;
            next = end - pos > step ? pos + step : end;
        }
        pos = starc_lower_bound(ids, pos + 1, next, w);
        *cursor = pos;
    }
    return (pos < end && ids[pos] == w) ? pos : -1;
}
