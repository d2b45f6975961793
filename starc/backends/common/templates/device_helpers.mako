## The device helpers every backend's prelude defines alike (starc/backends/common/device_prelude.py
## renders each def with the backend's Declarations `d`; indentation here is four spaces a level).
##
## atomic_helpers: starc_compare_exchange_<type>, then starc_atomic_<op>_<type> for the families
## of atomic_helpers.families(): a native instruction where the backend's table has one, else
## the same compare-and-swap loop on every backend.
<%def name="atomic_helpers(families, d)">
// --- atomics ----------------------------------------------------------------------------------
// starc_atomic_<op>_<type>(p, v) updates *p and returns the old value. Each operator keeps its
// own meaning: *= multiplies, &= ands, |= ors (StarPlat turned all of them into atomic adds).
//
// starc_compare_exchange_<type>(p, &expected, desired) stores desired in *p if *p holds
// expected (bit for bit) and returns true; otherwise it returns false and sets expected to the
// value it found. A helper without a native instruction retries it until no other thread
// wrote *p in between. Min/Max stop as soon as v does not improve *p (NaN never does): no
// write, no contention; the old value they return tells whether the update won.
% for family in families:
% if family.compare_exchange is not None:

${compare_exchange(family, d)}\
% endif
% endfor
% for family in families:
% if family.helpers:

% for line in family.heading:
// ${line}
% endfor
% endif
## The native helpers of a type are one-liners if all of them fit in 100 columns.
<% one_line = all(h.native.pragma is None and
                  d.fits(d.atomic_signature(h), f" {{ return {h.native.call}; }}")
                  for h in family.helpers if not h.loops) %>\
% for h in family.helpers:
% if not h.loops and h.native.pragma is not None:
${d.atomic_signature(h)} {
    ${h.ctype} old;
${h.native.pragma}
    { old = *p; ${h.native.statement}; }
    return old;
}
% elif not h.loops and one_line:
${d.atomic_signature(h)} { return ${h.native.call}; }
% elif not h.loops:
${d.atomic_signature(h)} {
    return ${h.native.call};
}
% elif h.native is not None:
${d.atomic_signature(h)} {
#if ${h.native.fallback_if}
${cas_loop(h)}\
#else
    return ${h.native.call};
#endif
}
% else:
${d.atomic_signature(h)} {
${cas_loop(h)}\
}
% endif
% if h.update is not None and h.update_pragma is not None:
${d.atomic_signature(h, update=True)} {
${h.update_pragma}
    ${h.update};
}
% elif h.update is not None and d.fits(d.atomic_signature(h, update=True), f" {{ {h.update}; }}"):
${d.atomic_signature(h, update=True)} { ${h.update}; }
% elif h.update is not None:
${d.atomic_signature(h, update=True)} {
    ${h.update};
}
% endif
% endfor
% endfor
</%def>

<%def name="compare_exchange(family, d)">\
<%
    cas = family.compare_exchange
    head = f"{d.device} bool starc_compare_exchange_{family.suffix}("
    params = [f"{d.atomic_pointer(family.ctype)}p", f"{d.local_pointer(family.ctype)}expected",
              f"{family.ctype} desired"]
%>\
% if d.fits(head, ", ".join(params), ") {"):
${head}${", ".join(params)}) {
% else:
${head}${params[0]}, ${params[1]},
        ${params[2]}) {
% endif
% if cas.alternative is not None:
#if ${cas.alternative_if}
${compare_exchange_body(cas.alternative)}\
#else
${compare_exchange_body(cas)}\
#endif
% else:
${compare_exchange_body(cas)}\
% endif
}
</%def>

<%def name="compare_exchange_body(cas)">\
% if cas.call is not None:
    return ${cas.call};
% else:
    ${cas.bits} old = ${cas.to_bits("*expected")};
% if cas.converts:
    ${cas.bits} wanted = ${cas.to_bits("desired")};
    ${cas.bits} seen = ${cas.exchange}(${cas.pointer("p")}, old, wanted);
% else:
    ${cas.bits} seen = ${cas.exchange}(${cas.pointer("p")}, old, desired);
% endif
    *expected = ${cas.to_value("seen")};
    return seen == old;
% endif
</%def>

<%def name="cas_loop(h)">\
    ${h.ctype} old = ${h.load};
% if h.improves is not None:
    while (${h.improves} && !starc_compare_exchange_${h.suffix}(p, &old, v)) {
    }
% elif len(h.new_value) <= 56:
    while (!starc_compare_exchange_${h.suffix}(p, &old, ${h.new_value})) {
    }
% else:
    while (!starc_compare_exchange_${h.suffix}(
            p, &old, ${h.new_value})) {
    }
% endif
    return old;
</%def>

## run_time_checks: the helpers of starc/analysis/checks.py (after the atomics: starc_raise
## records the failing site with starc_compare_exchange_int).
<%def name="run_time_checks(d)">
<% errors = f"{d.atomic_pointer('int')}err, {d.global_pointer(d.long)}err_value, int site" %>\
// --- run-time checks (starc/analysis/checks.py) -------------------------------------------------
// On failure a helper records its site (numbered from 1) in *err unless an earlier failure did
// (first writer wins: compare-exchange from 0), stores the offending value, and returns a safe
// value (index 0, quotient 0) so the kernel finishes; the host reports the site's message and
// prints no results. Signed overflow wraps: INT_MIN / -1 is INT_MIN and INT_MIN % -1 is 0.
${d.device} void starc_raise(${errors}, ${d.long} value) {
    int expected = 0;
    if (starc_compare_exchange_int(err, &expected, site)) *err_value = value;
}

${d.device} int starc_check_index(${d.long} i, int limit, ${errors}) {
    if (i >= 0 && i < limit) return (int)i;
    starc_raise(err, err_value, site, i);
    return 0;
}
% for suffix, t in d.integers:

${d.device} ${t} starc_div_${suffix}(${t} a, ${t} b, ${errors}) {
    if (b == 0) { starc_raise(err, err_value, site, 0); return 0; }
    return b == -1 ? (${t})((unsigned ${t})0 - (unsigned ${t})a) : a / b;
}

${d.device} ${t} starc_mod_${suffix}(${t} a, ${t} b, ${errors}) {
    if (b == 0) { starc_raise(err, err_value, site, 0); return 0; }
    return b == -1 ? 0 : a % b;
}
% endfor
</%def>

## wrapping_arithmetic: signed + - * and negation that wrap (analysis/wrapping.py), for device
## compilers without -fwrapv: unsigned arithmetic wraps by definition, and the conversion back
## to the signed type is two's complement on every target starc supports.
<%def name="wrapping_arithmetic(used, d)">
// --- signed arithmetic that wraps (analysis/wrapping.py) -----------------------------------------
// The language defines signed overflow to wrap; a device compiler may assume it never happens,
// so operations that may overflow compute in unsigned arithmetic.
% for suffix, t in d.integers:
<% u = f"unsigned {t}" %>\
% for name, op in (("add", "+"), ("sub", "-"), ("mul", "*")):
% if used is None or (name, suffix) in used:
${d.device} ${t} starc_${name}_${suffix}(${t} a, ${t} b) { return (${t})((${u})a ${op} (${u})b); }
% endif
% endfor
% if used is None or ("neg", suffix) in used:
${d.device} ${t} starc_neg_${suffix}(${t} a) { return (${t})((${u})0 - (${u})a); }
% endif
% endfor
</%def>

## graph_queries: searches of the sorted CSR rows (starc/graphs/csr.py, starc_graph.hpp), for
## g.is_an_edge/get_edge (starc_find_edge, starc_gallop: analysis/edge_cursors.py) and for
## neighbour loops filtered to a sub-range of a row (lower/upper bound: analysis/sorted_ranges.py).
<%def name="graph_queries(d)">
<% ids = d.global_pointer("int", const=True) %>\
// --- graph queries ----------------------------------------------------------------------------
// Every CSR row is sorted by id, so an edge test is a binary search.

// Binary searches of a sorted run ids[begin, end) (a CSR row): the first position whose id is
// >= value (lower) / > value (upper), end if none. A neighbour loop filtered by u < c, u >= c
// ... iterates only the positions between such bounds.
% for name, below in (("lower", "<"), ("upper", "<=")):
${d.anywhere} int starc_${name}_bound(${ids}ids, int begin, int end, int value) {
    while (begin < end) {
        int mid = begin + (end - begin) / 2;
        if (ids[mid] ${below} value) begin = mid + 1;
        else end = mid;
    }
    return begin;
}

% endfor
// The first edge u -> w (its CSR position, the lowest edge id), or -1.
${d.anywhere} int starc_find_edge(${ids}offsets, ${ids}targets, int u, int w) {
    int end = offsets[u + 1];
    int low = starc_lower_bound(targets, offsets[u], end, w);
    return low < end && targets[low] == w ? low : -1;
}

// starc_find_edge in rows with slack: row u is [starts[u], ends[u]), free slots after it.
${d.anywhere} int starc_find_edge_in(${ids}starts, ${ids}ends, ${ids}targets, int u, int w) {
    int end = ends[u];
    int low = starc_lower_bound(targets, starts[u], end, w);
    return low < end && targets[low] == w ? low : -1;
}

// find_edge for ascending w in the row [*cursor, end) of a sorted adjacency: moves *cursor to
// the first id >= w (galloping: cost log of the distance moved) and returns that position
// if it holds w, else -1. Every id before *cursor must be < w.
${d.anywhere} int starc_gallop(${ids}ids, ${d.local_pointer("int")}cursor, int end, int w) {
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
    return pos < end && ids[pos] == w ? pos : -1;
}

// A merge's step (a loop that only acts on edges to the cursor's row, RowScan.exhausted):
// moves *cursor (< end) forward to the first id >= w, or to end. `linear` (the rows are of
// comparable length: starc_merge_linear) steps one id at a time, as a merge does: each step
// is one compare the branch predictor learns, where a gallop's probes and binary search
// mispredict (R-MAT 18 tc: a third less time); otherwise it gallops.
${d.anywhere} void starc_advance(${ids}ids, ${d.local_pointer("int")}cursor, int end, int w, int linear) {
    if (linear) {
        int pos = *cursor;
        while (ids[pos] < w) {
            if (++pos == end) break;
        }
        *cursor = pos;
    } else {
        starc_gallop(ids, cursor, end, w);
    }
}

// Whether a merge steps linearly: the cursor's rest of row [pos, end) is at most 16 times
// the walked run's `walked` ids (a linear merge then costs at most about 17 compares per walked
// id, a gallop about 2 log2 of the distance, each likely mispredicted).
${d.anywhere} int starc_merge_linear(int pos, int end, int walked) {
    return (end - pos) / 16 <= walked;
}
</%def>

## random_numbers: g.randSP's values (ir.Random; starc/ir/randoms.py), the same bits as the
## reference executor's starc/reference/randoms.py.
<%def name="random_numbers(d)">
<% u64 = f"unsigned {d.long}" %>\
// --- random numbers (g.randSP) -----------------------------------------------------------------
// starc_random(seed, draw, j, v): the value in [0, 2^31) that the draw-th randSP of a run (from
// 0) stores in its j-th property (from 0) at vertex v. splitmix64's finaliser is chained over
// the four inputs in 64-bit unsigned arithmetic, so every backend gives the same bits.
${d.device} ${u64} starc_mix64(${u64} z) {
    z += 0x9E3779B97F4A7C15;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EB;
    return z ^ (z >> 31);
}

${d.device} int starc_random(${d.long} seed, ${d.long} draw, int j, int v) {
    ${u64} h = starc_mix64((${u64})seed);
    h = starc_mix64(h ^ (${u64})draw);
    h = starc_mix64(h ^ (${u64})j);
    h = starc_mix64(h ^ (${u64})v);
    return (int)(h >> 33);
}
</%def>

## union_find: the forest of analysis/union_find.py, only where a kernel links or finds
## (feature "union_find"); its compare-and-swap is the int helper every prelude has.
<%def name="union_find(d)">
// --- union-find (analysis/union_find.py) -------------------------------------------------------
// starc_find_root(parent, x): the root of x's tree, each vertex on the way pointed at its
// grandparent (path halving). Racing with links and other finds is benign: a parent only ever
// moves to an ancestor, so whatever value a read sees leads on to the root.
${d.device} int starc_find_root(${d.atomic_pointer("int")}parent, int x) {
    int p = parent[x];
    while (p != x) {
        const int grand = parent[p];
        if (grand != p) parent[x] = grand;
        x = p;
        p = grand;
    }
    return x;
}

// starc_unite(parent, a, b): joins the trees of a and b, the larger root hooked under the
// smaller by a compare-and-swap, retried from the new roots where another link moved one
// first; so a tree's root is always its least id, and no cycle forms.
${d.device} void starc_unite(${d.atomic_pointer("int")}parent, int a, int b) {
    for (;;) {
        a = starc_find_root(parent, a);
        b = starc_find_root(parent, b);
        if (a == b) return;
        if (a < b) {
            const int t = a;
            a = b;
            b = t;
        }
        int expected = a;
        if (starc_compare_exchange_int(&parent[a], &expected, b)) return;
    }
}
</%def>
