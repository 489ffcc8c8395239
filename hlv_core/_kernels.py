"""Compiled single-pass kernels for sigma's two heavy steps (numba; imported lazily).

Why compiled code here, and why numba: Basile's sigma needs every pairwise alpha (Krippendorff
2011, two-row alpha per annotator pair) and the balanced / unbalanced triangles of the signed
annotator graph (Basile, "A Measure of Systematic Disagreement", section 3). Both are linear in
(item, annotator pair) instances and in wedges of the graph, but the vectorised numpy reference
(:mod:`hlv_core._alpha`, :mod:`hlv_core.balance`) has to materialise and sort one packed key per
instance (50 M keys at 10 M crowd rows) and gather every wedge. A loop that accumulates each
annotator's partners in a scratch array, and a forward triangle enumeration with node marks, do
the same counting in one pass without the sort. numba is a well-kept scientific-Python JIT
(LLVM): the kernels stay plain Python over numpy arrays, compiled once per machine and cached
next to this file (``cache=True``). No ``parallel=True``: CPU time is the measure, and a page
runs beside others.

The numpy implementations stay the reference: they run where numba is not installed (this
module then fails to import, and :func:`hlv_core._compiled.kernels` answers None) and are the
oracle of the tests, which assert the kernels' integers equal theirs bit for bit. Nothing
imports this module at import time of ``hlv_core``, the CLI or a page: only the functions that
need a kernel, at call time (through :func:`hlv_core._compiled.kernels`).

Every kernel takes int64 arrays and returns exact integer statistics (as float64 where the numpy
reference returns floats), in the same order and dtype as the reference.

One more kernel serves the dataset's content hash: :func:`string_hashes` computes pandas'
``hash_array(..., categorize=False)`` of a string dictionary (SipHash-2-4 of the UTF-8 bytes,
then pandas' bit mixing) from Arrow's value and offset buffers, the same uint64 numbers
without one Python string per id; pandas stays its reference.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit
from numba.core import cgutils, types
from numba.extending import intrinsic

__all__ = ["degree_bound", "pair_statistics", "string_hashes", "triangle_sums"]

#: Visits read ahead: the memory of the group (item) or out-list visited this many steps later
#: is requested now (a prefetch), so its cache miss overlaps the current work. Both kernels
#: visit their groups in an order unrelated to memory (each annotator's items; each node's
#: neighbours); without it they wait on one miss per visit (10 M visits at 10 M rows: 1.4 s
#: -> 0.45 s CPU for the visits alone).
_AHEAD = 8
#: Partners sorted by insertion below this many (numpy's sort above).
_SMALL_SORT = 32


@intrinsic
def _prefetch(typingctx, array, index):
    """Hint the CPU to load ``array[index]`` into cache (LLVM's prefetch: read, high
    locality); no effect on results."""
    sig = types.void(array, index)

    def codegen(context, builder, signature, args):
        array_type = signature.args[0]
        view = context.make_array(array_type)(context, builder, args[0])
        pointer = cgutils.get_item_pointer(context, builder, array_type, view, [args[1]],
                                           wraparound=False)
        pointer = builder.bitcast(pointer, ir.IntType(8).as_pointer())  # one declaration
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [pointer.type, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        builder.call(fn, [pointer, ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return sig, codegen


@njit(cache=True, nogil=True)
def _sort_small(values, n):
    """``values[:n]`` sorted in place (insertion sort for short runs)."""
    if n > _SMALL_SORT:
        values[:n] = np.sort(values[:n])
        return
    for i in range(1, n):
        x = values[i]
        j = i - 1
        while j >= 0 and values[j] > x:
            values[j + 1] = values[j]
            j -= 1
        values[j + 1] = x


@njit(cache=True, nogil=True)
def _split_codes(code, shift, av, flag):
    """Fill ``av`` with the ``annotator | value`` bits of ``code`` (the bits below ``shift``),
    plus ``flag`` where the slot is the last of its item's group (the item bits, ``code >>
    shift``, change after it)."""
    rows = len(code)
    fields = flag - 1
    for s in range(rows - 1):
        last = flag if code[s + 1] >> shift != code[s] >> shift else 0
        av[s] = (code[s] & fields) | last
    if rows:
        av[rows - 1] = (code[rows - 1] & fields) | flag


@njit(cache=True, nogil=True)
def _annotator_slots(av, n_ann, v_bits, flag):
    """Every annotation's slot (int32), annotators ascending, slots ascending inside an
    annotator, and ``a_ptr`` (n_ann + 1), the annotators' runs: a stable two-pass radix sort by
    annotator (low bits, then high bits) of the slots of ``av`` (``annotator | value`` codes in
    item order, ``flag`` above them). Each pass writes to at most 2**ceil(a_bits / 2) places at
    once, which stay in cache (one pass to n_ann places would miss on nearly every write)."""
    rows = len(av)
    fields = flag - 1
    a_bits = 0
    while (1 << a_bits) < n_ann:
        a_bits += 1
    low_bits = (a_bits + 1) // 2
    low_mask = (1 << low_bits) - 1
    ptr = np.zeros((1 << low_bits) + 1, np.int64)
    a_ptr = np.zeros(n_ann + 1, np.int64)
    for s in range(rows):
        a = (av[s] & fields) >> v_bits
        ptr[(a & low_mask) + 1] += 1
        a_ptr[a + 1] += 1
    for i in range(1 << low_bits):
        ptr[i + 1] += ptr[i]
    for a in range(n_ann):
        a_ptr[a + 1] += a_ptr[a]
    tmp_slot = np.empty(rows, np.int32)
    tmp_ann = np.empty(rows, np.int32)
    for s in range(rows):  # pass 1: by the low bits of the annotator
        a = (av[s] & fields) >> v_bits
        o = ptr[a & low_mask]
        tmp_slot[o] = s
        tmp_ann[o] = a
        ptr[a & low_mask] = o + 1
    high = np.zeros((n_ann >> low_bits) + 2, np.int64)
    for a in range(n_ann):
        high[(a >> low_bits) + 1] += a_ptr[a + 1] - a_ptr[a]
    for i in range(len(high) - 1):
        high[i + 1] += high[i]
    own = np.empty(rows, np.int32)
    for j in range(rows):  # pass 2: by the high bits (stable)
        a = tmp_ann[j]
        o = high[a >> low_bits]
        own[o] = tmp_slot[j]
        high[a >> low_bits] = o + 1
    return own, a_ptr


@njit(cache=True, nogil=True)
def _grow(array, size):
    out = np.zeros(size, array.dtype)
    out[: len(array)] = array
    return out


@njit(cache=True, nogil=True)
def pair_statistics(code, av, n_ann, a_bits, v_bits, k, nominal, scratch_limit):
    """Integer statistics of every annotator pair (a < b) sharing an item, pairs ascending.

    ``code``: the sorted packed codes ``item | annotator | value`` of every annotation (bit
    fields of widths -, ``a_bits``, ``v_bits``; ``2 (a_bits + v_bits) <= 62``, fewer than
    2**31 annotations); ``av`` (R,) scratch filled with the same codes' ``annotator | value``
    bits and, one bit above them, a mark on the last annotation of each item (int32 where that
    fits: half the memory traffic). For each annotator a, the instances
    (item, b > a) are read from its items' groups and accumulated per partner b, then the
    partners touched are sorted and their statistics emitted and cleared. The accumulator is a
    table of one row per partner (its instances and value counts) where ``n_ann`` rows fit in
    ``scratch_limit`` entries, otherwise a buffer of the instances ordered by partner (a
    counting sort). Returns ``keys`` (a * n_ann + b, int64), ``n_shared`` (float64) and, when
    ``nominal``, ``agree`` (value pairs equal) and ``sum_m2`` (sum over values c of m_c^2, m_c
    the pair's count of value c); otherwise ``marg`` (P * k, the pair's value counts) and
    ``cross`` (P * k(k-1)/2, the unordered value pairs c < d in ``triu_indices(k, 1)`` order),
    all float64 holding integers."""
    flag = 1 << (a_bits + v_bits)
    _split_codes(code, a_bits + v_bits, av, flag)
    own, a_ptr = _annotator_slots(av, n_ann, v_bits, flag)
    n_cross = k * (k - 1) // 2
    width = 2 + k if nominal else 1 + k + n_cross
    width = (width + 7) // 8 * 8  # rows of whole 32-byte blocks: none straddles a cache line
    if n_ann * width <= scratch_limit:
        return _pairs_by_table(av, own, a_ptr, n_ann, v_bits, flag, k, nominal, width)
    return _pairs_by_buffer(av, own, a_ptr, n_ann, v_bits, flag, k, nominal)


@njit(cache=True, nogil=True)
def _pairs_by_table(av, own, a_ptr, n_ann, v_bits, flag, k, nominal, width):
    """:func:`pair_statistics` with a table of one row per partner b: ``[n, agree, m_0 ..
    m_k-1]`` (nominal) or ``[n, marg_0 .. marg_k-1, cross_0 .. cross_C-1]``; one row is one or
    two cache lines, so each instance updates one place."""
    rows = len(own)
    v_mask = (1 << v_bits) - 1
    fields = flag - 1
    n_cross = k * (k - 1) // 2
    table = np.zeros(n_ann * width, np.int32)
    touched = np.empty(n_ann, np.int64)
    cap = max(1024, rows // 4)
    keys = np.empty(cap, np.int64)
    shared = np.empty(cap, np.float64)
    width1 = 1 if nominal else k
    width2 = 1 if nominal else n_cross
    stat1 = np.zeros(cap * width1, np.float64)
    stat2 = np.zeros(cap * width2, np.float64)
    n_pairs = 0
    for a in range(n_ann):
        n_touched = 0
        for j in range(a_ptr[a], a_ptr[a + 1]):
            if j + _AHEAD < rows:
                _prefetch(av, own[j + _AHEAD])
            q = own[j]
            c = av[q]
            if c & flag:  # the item's last annotator: no partner after it
                continue
            va = c & v_mask
            while True:
                q += 1
                c = av[q]
                vb = c & v_mask
                b = (c & fields) >> v_bits
                row = b * width
                if table[row] == 0:
                    touched[n_touched] = b
                    n_touched += 1
                table[row] += 1
                if nominal:
                    if va == vb:
                        table[row + 1] += 1
                    table[row + 2 + va] += 1
                    table[row + 2 + vb] += 1
                else:
                    table[row + 1 + va] += 1
                    table[row + 1 + vb] += 1
                    if va != vb:
                        lo = min(va, vb)
                        hi = max(va, vb)
                        table[row + 1 + k + lo * k - lo * (lo + 1) // 2 + (hi - lo - 1)] += 1
                if c & flag:
                    break
        if n_touched == 0:
            continue
        _sort_small(touched, n_touched)
        if n_pairs + n_touched > cap:
            cap = max(2 * cap, n_pairs + n_touched)
            keys = _grow(keys, cap)
            shared = _grow(shared, cap)
            stat1 = _grow(stat1, cap * width1)
            stat2 = _grow(stat2, cap * width2)
        for t in range(n_touched):
            b = touched[t]
            row = b * width
            p = n_pairs + t
            keys[p] = a * n_ann + b
            shared[p] = table[row]
            if nominal:
                stat1[p] = table[row + 1]
                sum_m2 = 0
                for c in range(k):
                    x = np.int64(table[row + 2 + c])
                    sum_m2 += x * x
                stat2[p] = sum_m2
            else:
                for c in range(k):
                    stat1[p * k + c] = table[row + 1 + c]
                for c in range(n_cross):
                    stat2[p * n_cross + c] = table[row + 1 + k + c]
            table[row: row + width] = 0
        n_pairs += n_touched
    return (keys[:n_pairs].copy(), shared[:n_pairs].copy(), stat1[: n_pairs * width1].copy(),
            stat2[: n_pairs * width2].copy())


@njit(cache=True, nogil=True)
def _pairs_by_buffer(av, own, a_ptr, n_ann, v_bits, flag, k, nominal):
    """:func:`pair_statistics` for many values (a partner table would not fit): the instances
    of annotator a are gathered, counted per partner, ordered by partner (a counting sort into
    a buffer) and reduced per pair."""
    rows = len(own)
    v_mask = (1 << v_bits) - 1
    fields = flag - 1
    pair_mask = (1 << (2 * v_bits)) - 1
    n_cross = k * (k - 1) // 2
    width1 = 1 if nominal else k
    width2 = 1 if nominal else n_cross
    count = np.zeros(n_ann, np.int32)  # per partner b: its instances, then its run's offset
    touched = np.empty(n_ann, np.int64)
    got = np.empty(1024, np.int64)  # b | v_a | v_b of every gathered instance (grows)
    buf = np.empty(1024, np.int64)  # v_a | v_b, ordered by partner
    m = np.zeros(k, np.int64)
    cap = max(1024, rows // 4)
    keys = np.empty(cap, np.int64)
    shared = np.empty(cap, np.float64)
    stat1 = np.zeros(cap * width1, np.float64)
    stat2 = np.zeros(cap * width2, np.float64)
    n_pairs = 0
    for a in range(n_ann):
        n_touched = 0
        n_got = 0
        for j in range(a_ptr[a], a_ptr[a + 1]):
            if j + _AHEAD < rows:
                _prefetch(av, own[j + _AHEAD])
            q = own[j]
            c = av[q]
            if c & flag:  # the item's last annotator: no partner after it
                continue
            va = (c & v_mask) << v_bits
            while True:
                q += 1
                c = av[q]
                b = (c & fields) >> v_bits
                if n_got == len(got):
                    got = _grow(got, 2 * n_got)
                got[n_got] = (b << (2 * v_bits)) | va | (c & v_mask)
                n_got += 1
                x = count[b]
                if x == 0:
                    touched[n_touched] = b
                    n_touched += 1
                count[b] = x + 1
                if c & flag:
                    break
        if n_touched == 0:
            continue
        if len(buf) < n_got:
            buf = np.empty(len(got), np.int64)
        _sort_small(touched, n_touched)
        pos = 0
        for t in range(n_touched):  # counts -> start of each partner's run in the buffer
            b = touched[t]
            c = count[b]
            count[b] = pos
            pos += c
        for g in range(n_got):
            b = got[g] >> (2 * v_bits)
            o = count[b]
            buf[o] = got[g] & pair_mask
            count[b] = o + 1
        if n_pairs + n_touched > cap:
            cap = max(2 * cap, n_pairs + n_touched)
            keys = _grow(keys, cap)
            shared = _grow(shared, cap)
            stat1 = _grow(stat1, cap * width1)
            stat2 = _grow(stat2, cap * width2)
        start = 0
        for t in range(n_touched):
            b = touched[t]
            end = count[b]  # the run's end after the fill
            count[b] = 0  # clean for the next annotator
            p = n_pairs + t
            keys[p] = a * n_ann + b
            shared[p] = end - start
            if nominal:
                agree = 0
                for o in range(start, end):
                    x = buf[o] >> v_bits
                    y = buf[o] & v_mask
                    if x == y:
                        agree += 1
                    m[x] += 1
                    m[y] += 1
                sum_m2 = 0
                for o in range(start, end):  # each value's count once, reset after use
                    x = buf[o] >> v_bits
                    y = buf[o] & v_mask
                    sum_m2 += m[x] * m[x]
                    m[x] = 0
                    sum_m2 += m[y] * m[y]
                    m[y] = 0
                stat1[p] = agree
                stat2[p] = sum_m2
            else:
                for o in range(start, end):
                    x = buf[o] >> v_bits
                    y = buf[o] & v_mask
                    stat1[p * k + x] += 1.0
                    stat1[p * k + y] += 1.0
                    if x != y:
                        lo = min(x, y)
                        hi = max(x, y)
                        stat2[p * n_cross + lo * k - lo * (lo + 1) // 2 + (hi - lo - 1)] += 1.0
            start = end
        n_pairs += n_touched
    return (keys[:n_pairs].copy(), shared[:n_pairs].copy(), stat1[: n_pairs * width1].copy(),
            stat2[: n_pairs * width2].copy())


@njit(cache=True, nogil=True)
def triangle_sums(n, src, dst, sign):
    """Balanced and unbalanced triangles through every edge of a signed graph.

    Edge e joins ``src[e]`` to ``dst[e]``, oriented from the lower to the higher degree rank
    (so every node has at most sqrt(2E) out-neighbours), ``sign[e]`` in {-1, +1}; fewer than
    2**31 edges. Forward enumeration: for each node u its out-neighbours are marked with their
    slot in u's out-list; every out-neighbour w of an out-neighbour v of u that is marked closes
    the triangle (u, v, w), found exactly once. The counts are kept per out-list slot (the three
    edges of a triangle sit in the out-lists being read: no scattered writes) and returned per
    edge: ``(balanced, unbalanced)``, int64 arrays of shape (E,) in the input's edge order."""
    n_edges = len(src)
    ptr = np.zeros(n + 1, np.int64)
    for e in range(n_edges):
        ptr[src[e] + 1] += 1
    for u in range(n):
        ptr[u + 1] += ptr[u]
    out_node = np.empty(n_edges, np.int32)
    out_sign = np.empty(n_edges, np.int8)
    slot_of = np.empty(n_edges, np.int64)
    nxt = ptr[:-1].copy()
    for e in range(n_edges):
        s = nxt[src[e]]
        nxt[src[e]] = s + 1
        out_node[s] = dst[e]
        out_sign[s] = sign[e]
        slot_of[e] = s
    mark = np.full(n, -1, np.int32)  # slot of the edge u -> w while u is processed
    count = np.zeros(2 * n_edges, np.int32)  # per slot: balanced, unbalanced triangles
    for u in range(n):
        first = ptr[u]
        last = ptr[u + 1]
        for p in range(first, last):
            mark[out_node[p]] = p
        for p in range(first, last):
            if p + _AHEAD < n_edges:  # the out-list, signs and counts of a later neighbour
                ahead = ptr[out_node[p + _AHEAD]]
                _prefetch(out_node, ahead)
                _prefetch(out_sign, ahead)
                _prefetch(count, 2 * ahead)
            v = out_node[p]
            s1 = out_sign[p]
            n1 = 0
            u1 = 0
            for p2 in range(ptr[v], ptr[v + 1]):
                p3 = mark[out_node[p2]]
                if p3 >= first and p3 < last:  # u -> w exists: triangle (u, v, w)
                    unbalanced = 1 if s1 * out_sign[p2] * out_sign[p3] < 0 else 0
                    n1 += 1
                    u1 += unbalanced
                    count[2 * p2 + unbalanced] += 1
                    count[2 * p3 + unbalanced] += 1
            count[2 * p] += n1 - u1
            count[2 * p + 1] += u1
    balanced = np.empty(n_edges, np.int64)
    unbalanced = np.empty(n_edges, np.int64)
    for e in range(n_edges):
        balanced[e] = count[2 * slot_of[e]]
        unbalanced[e] = count[2 * slot_of[e] + 1]
    return balanced, unbalanced


@njit(cache=True, nogil=True)
def degree_bound(item, annotator, n_items, n_ann):
    """Annotations per item and per annotator, and per annotator v ``sum over its items i of
    (n_i - 1)``: the co-annotations that bound its degree in the annotator graph (sigma's cost
    estimate). Two passes; int64 arrays of shapes (n_items,), (n_ann,), (n_ann,)."""
    per_item = np.zeros(n_items, np.int64)
    per_annotator = np.zeros(n_ann, np.int64)
    for r in range(len(item)):
        per_item[item[r]] += 1
        per_annotator[annotator[r]] += 1
    degree = np.zeros(n_ann, np.int64)
    for r in range(len(item)):
        degree[annotator[r]] += per_item[item[r]] - 1
    return per_item, per_annotator, degree


#: SipHash-2-4's initial state constants ("somepseudorandomlygeneratedbytes", Aumasson and
#: Bernstein, "SipHash: a fast short-input PRF", section 2).
_SIP_V0 = np.uint64(0x736F6D6570736575)
_SIP_V1 = np.uint64(0x646F72616E646F6D)
_SIP_V2 = np.uint64(0x6C7967656E657261)
_SIP_V3 = np.uint64(0x7465646279746573)
#: pandas' default hash key "0123456789123456" read as two little-endian 64-bit words.
_PANDAS_K0 = np.uint64(int.from_bytes(b"01234567", "little"))
_PANDAS_K1 = np.uint64(int.from_bytes(b"89123456", "little"))
#: The final bit mixing of ``pandas.core.util.hashing._hash_ndarray`` (splitmix64's).
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True, nogil=True, inline="always")
def _rotl(x, b):
    return (x << np.uint64(b)) | (x >> np.uint64(64 - b))


@njit(cache=True, nogil=True, inline="always")
def _sip_round(v0, v1, v2, v3):
    v0 += v1
    v1 = _rotl(v1, 13) ^ v0
    v0 = _rotl(v0, 32)
    v2 += v3
    v3 = _rotl(v3, 16) ^ v2
    v0 += v3
    v3 = _rotl(v3, 21) ^ v0
    v2 += v1
    v1 = _rotl(v1, 17) ^ v2
    v2 = _rotl(v2, 32)
    return v0, v1, v2, v3


@njit(cache=True, nogil=True, inline="always")
def _word(data, start, n):
    """The ``n`` (<= 8) bytes ``data[start:start + n]`` as a little-endian uint64."""
    m = np.uint64(0)
    for j in range(n):
        m |= np.uint64(data[start + j]) << np.uint64(8 * j)
    return m


@njit(cache=True, nogil=True)
def string_hashes(data, offsets):
    """``pandas.util.hash_array(strings, categorize=False)`` of the strings whose UTF-8 bytes
    are ``data[offsets[i]:offsets[i + 1]]`` (an Arrow string array's value and offset
    buffers; int32 or int64 offsets, n + 1 of them): uint64 array of shape (n,).

    Each string's bytes go through SipHash-2-4 (Aumasson and Bernstein, "SipHash: a fast
    short-input PRF", section 2: 8-byte little-endian blocks, two compression rounds each, the
    last block padded with zeros and topped with the length mod 256, four finalisation rounds)
    keyed with pandas' default key "0123456789123456", then the result is mixed as
    ``_hash_ndarray`` mixes every hash (x ^= x >> 30; x *= 0xBF58476D1CE4E5B9; x ^= x >> 27;
    x *= 0x94D049BB133111EB; x ^= x >> 31)."""
    n = len(offsets) - 1
    out = np.empty(max(n, 0), np.uint64)
    for i in range(n):
        start = np.int64(offsets[i])
        length = np.int64(offsets[i + 1]) - start
        v0 = _PANDAS_K0 ^ _SIP_V0
        v1 = _PANDAS_K1 ^ _SIP_V1
        v2 = _PANDAS_K0 ^ _SIP_V2
        v3 = _PANDAS_K1 ^ _SIP_V3
        end = start + (length & ~np.int64(7))
        for p in range(start, end, 8):
            m = _word(data, p, 8)
            v3 ^= m
            v0, v1, v2, v3 = _sip_round(v0, v1, v2, v3)
            v0, v1, v2, v3 = _sip_round(v0, v1, v2, v3)
            v0 ^= m
        b = (np.uint64(length & 0xFF) << np.uint64(56)) | _word(data, end, length & 7)
        v3 ^= b
        v0, v1, v2, v3 = _sip_round(v0, v1, v2, v3)
        v0, v1, v2, v3 = _sip_round(v0, v1, v2, v3)
        v0 ^= b
        v2 ^= np.uint64(0xFF)
        for _ in range(4):
            v0, v1, v2, v3 = _sip_round(v0, v1, v2, v3)
        x = v0 ^ v1 ^ v2 ^ v3
        x ^= x >> np.uint64(30)
        x *= _MIX1
        x ^= x >> np.uint64(27)
        x *= _MIX2
        x ^= x >> np.uint64(31)
        out[i] = x
    return out
