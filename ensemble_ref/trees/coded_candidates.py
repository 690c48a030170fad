"""The candidate splits of a level of coded trees, from histograms of the codes.

A *pair* is a node and a feature it searches. The samples of a node hold a few of the
feature's codes; every threshold between two consecutive codes present in the node (two
values more than ``FEATURE_THRESHOLD`` apart, scikit-learn's rule) is a candidate, and its
left side holds the samples of the codes up to the lower one. The candidates carry the
sums of the criterion's statistics (the *rows*: class counts or ``w y``, the weights, the
counts when needed) over that left side. Two ways to the sums, chosen per feature:

* **product** (features with very few values): the left sums of every threshold of every
  node at once, as the matrix product of the node-by-sample statistics with the
  feature's thermometer columns (:class:`~ensemble_ref.trees.value_codes.Thermometer`);
* **bincount** (the others): a histogram of each pair's codes (``numpy.bincount`` over the
  pair's samples), then running sums over its non-empty bins.

Every sum is accumulated over one node's samples, in their order (or, for the product of a
big node's child, is its parent's minus its sibling's), and nothing else: a node's
candidates are the same numbers whichever nodes (of whichever trees) share the level.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse

from .engine import FEATURE_THRESHOLD, segment_ranges
from .value_codes import Thermometer, ValueCodes

__all__ = ["Candidates", "first_best", "segment_cumsum", "product_sums", "product_candidates", "nonconstant",
           "bincount_candidates", "next_codes"]

CHUNK = 2**16  # samples of the pairs histogrammed at once (their arrays stay in the cache)
SPARSE = 4  # a pair with more codes than SPARSE times its samples sorts them


@dataclass
class Candidates:
    """Candidate splits: node, ordering key (visit rank, then code), feature, the highest
    code going left, the next code present (-1: not known yet), the left sums (rows, c) and,
    once scored, the score."""

    node: np.ndarray
    key: np.ndarray
    feature: np.ndarray
    code: np.ndarray
    next_code: np.ndarray
    sums: np.ndarray
    score: np.ndarray | None = None

    def take(self, i: np.ndarray) -> Candidates:
        score = None if self.score is None else np.take(self.score, i)
        return Candidates(*(np.take(a, i) for a in (self.node, self.key, self.feature, self.code,
                                                    self.next_code)), np.take(self.sums, i, axis=1), score)

    @staticmethod
    def join(parts: list[Candidates], n_rows: int) -> Candidates:
        if not parts:
            e = np.zeros(0, dtype=np.intp)
            return Candidates(e, e, e, e, e, np.zeros((n_rows, 0)), np.zeros(0))
        return Candidates(*(np.concatenate([getattr(c, f) for c in parts], axis=-1)
                            for f in ("node", "key", "feature", "code", "next_code", "sums", "score")))


def first_best(node: np.ndarray, key: np.ndarray, score: np.ndarray, ordered: bool = False
               ) -> np.ndarray:
    """The best candidate of each node (candidates grouped by node), by position: the
    highest score, the lowest key of those (the first in visit order, then the lowest code).
    ``ordered``: the keys increase within each node, so the first highest score is the one."""
    if node.size == 0:
        return np.zeros(0, dtype=np.intp)
    start = np.flatnonzero(np.r_[True, node[1:] != node[:-1]])
    length = np.diff(np.r_[start, node.size])
    best = np.maximum.reduceat(score, start)
    if ordered and not np.isnan(best).any():
        hit = np.flatnonzero(score == np.repeat(best, length))  # each node has one at least
        return np.take(hit, np.searchsorted(hit, start))[best > -np.inf]
    none = np.iinfo(np.intp).max
    key = np.where((score == np.repeat(best, length)) & (score > -np.inf), key, none)
    lowest = np.minimum.reduceat(key, start)
    return np.flatnonzero((key == np.repeat(lowest, length)) & (key < none))


def segment_cumsum(x: np.ndarray, counts: np.ndarray, exact: bool = False) -> np.ndarray:
    """Running sums of the columns of ``x`` (rows, n) restarting at every segment of ``counts``.

    Each segment's sums are added one after the other from its first column, whatever the
    other segments hold: the sums of whole numbers (or of halves: ``exact``, or found so)
    as integers, exact in any order; the others by segments of similar length laid side by
    side (``cumsum`` along the first axis of a ``(length, segments)`` block adds columns in
    order).
    """
    if x.size == 0:
        return x.copy()
    starts = np.cumsum(counts) - counts
    for scale in (1.0, 2.0):  # whole numbers, or halves (integers less a mid-range)
        if (exact and scale == 2.0) or (not exact and np.abs(x).sum() * scale < 2.0**53
                                         and np.array_equal(x * scale, np.round(x * scale))):
            P = np.cumsum((x * scale).astype(np.int64), axis=1)
            before = np.where(starts > 0, np.take(P, np.maximum(starts - 1, 0), axis=1), 0)
            return (P - np.repeat(before, counts, axis=1)) / scale
    out = np.empty_like(x)
    width = 1 << np.ceil(np.log2(np.maximum(counts, 1))).astype(np.int64)
    for w in np.unique(width):
        seg = np.flatnonzero(width == w)
        at = segment_ranges(starts[seg], counts[seg])
        step = at - np.repeat(starts[seg], counts[seg])
        col = np.repeat(np.arange(seg.size), counts[seg])
        block = np.zeros((w, seg.size, x.shape[0]))
        block[step, col] = np.take(x, at, axis=1).T
        np.cumsum(block, axis=0, out=block)
        out[:, at] = block[step, col].T
    return out


def product_sums(therm: Thermometer, rows: np.ndarray, sample: np.ndarray, starts: np.ndarray,
                 sizes: np.ndarray) -> np.ndarray:
    """Left sums (one array (nodes, columns) per row) of every thermometer column of every
    node: for each statistic, the sparse node-by-sample matrix times the thermometer matrix."""
    indptr = np.append(starts, starts[-1] + sizes[-1])
    shape = (starts.size, therm.X.shape[0])
    return [scipy.sparse.csr_matrix((r, sample, indptr), shape=shape) @ therm.X for r in rows]


def product_candidates(coded: ValueCodes, therm: Thermometer, L: np.ndarray, occupied: np.ndarray,
                       total: np.ndarray, pair_node: np.ndarray, pair_rank: np.ndarray,
                       pair_feat: np.ndarray, key_width: int, keep) -> tuple[Candidates, np.ndarray]:
    """The candidates of the given pairs of product features, and whether each pair's
    feature takes several values in its node (it does when it has a candidate).

    ``L``: :func:`product_sums`; ``occupied`` (nodes, columns): the counts or whole weights
    left of every column, ``total`` those of the nodes. Threshold ``c`` is a candidate when
    code ``c`` is present (more left of ``c`` than of ``c - 1``) and a higher one too.
    ``keep(node, key, sums)``: which candidates (grouped by node) to keep, and their scores.
    """
    width = coded.n_values[pair_feat] - 1
    first = pair_node * occupied.shape[1] + therm.column_start[pair_feat]
    if width.max() == 1:  # binary features: one column each
        p, code = np.arange(first.size), np.zeros(first.size, dtype=np.intp)
        at, below = first, 0
    else:
        p = np.repeat(np.arange(pair_node.size), width)  # the pair of each column
        code = np.arange(p.size) - np.take(np.cumsum(width) - width, p)
        at = np.take(first, p) + code  # the pairs' columns in the flat (nodes, columns)
        below = np.where(code > 0, np.take(occupied, at - 1), 0)
    node = np.take(pair_node, p)
    left = np.take(occupied, at)
    i = np.flatnonzero((left > below) & (left < np.take(total, node)))
    node, p, c, at = np.take(node, i), np.take(p, i), np.take(code, i), np.take(at, i)
    sums = np.stack([np.take(S, at) for S in L])
    key = np.take(pair_rank, p) * key_width + c
    pick, score = keep(node, key, sums)
    cands = Candidates(node[pick], key[pick], pair_feat[p[pick]], c[pick], np.full(pick.size, -1),
                       np.take(sums, pick, axis=1), score)
    return cands, np.bincount(p, minlength=pair_node.size) > 0


def next_codes(coded: ValueCodes, therm: Thermometer, occupied: np.ndarray, node: np.ndarray,
               feature: np.ndarray, code: np.ndarray) -> np.ndarray:
    """The lowest code present above ``code`` in each node (product features): the first
    column after ``code`` with more left of it, or the feature's last code."""
    last = coded.n_values[feature] - 1
    span = int((last - code).max(initial=1))
    step = np.arange(1, span + 1)
    c = np.minimum(code[:, None] + step[None, :], last[:, None])  # codes code+1, ..., last
    col = therm.column_start[feature][:, None] + np.minimum(c, last[:, None] - 1)
    left = occupied[node[:, None], col]
    more = (left > occupied[node, therm.column_start[feature] + code][:, None]) | (c == last[:, None])
    return c[np.arange(code.size), more.argmax(axis=1)]


def nonconstant(coded: ValueCodes, sample: np.ndarray, starts: np.ndarray, sizes: np.ndarray,
                nodes: np.ndarray, features: np.ndarray) -> np.ndarray:
    """Whether each feature of ``features`` (rows, one row per node of ``nodes``) takes values
    more than ``FEATURE_THRESHOLD`` apart in the node, from its lowest and highest codes."""
    k = features.shape[1]
    pair_node, pair_feat = np.repeat(nodes, k), features.ravel()
    plen = sizes[pair_node]
    at = segment_ranges(starts[pair_node], plen)
    codes = coded.codes.ravel()[np.repeat(pair_feat * coded.n_samples, plen) + sample[at]]
    pstart = np.cumsum(plen) - plen
    lo, hi = np.minimum.reduceat(codes, pstart), np.maximum.reduceat(codes, pstart)
    ok = coded.value(pair_feat, hi) > coded.value(pair_feat, lo) + FEATURE_THRESHOLD
    return ok.reshape(nodes.size, k)


def bincount_candidates(coded: ValueCodes, table: np.ndarray, fold: int, histogram,
                        occupancy: int, exact: bool, sample: np.ndarray,
                        starts: np.ndarray, sizes: np.ndarray, pair_node: np.ndarray,
                        pair_rank: np.ndarray, pair_feat: np.ndarray, key_width: int, keep
                        ) -> tuple[Candidates, np.ndarray]:
    """The candidates of the given pairs from histograms of their codes, and whether each
    pair's feature takes several values in its node.

    ``table``: every sample's codes, times ``fold`` plus its class (classification: one
    histogram counts every class); ``histogram(bins, at, n_bins)``: the sums (one array of
    n_bins per row) of the level's samples ``at`` in their (folded) ``bins``; row ``occupancy``
    counts (or weighs, in whole numbers) the samples. A pair with more codes than ``SPARSE``
    times its samples has its codes sorted instead (its histogram would be mostly empty); the
    pairs are taken a chunk at a time, those of nodes that search k features the same way as
    blocks (samples, k).
    """
    plen = sizes[pair_node]
    sparse = coded.n_values[pair_feat] > SPARSE * plen
    parts, varies = [], np.zeros(pair_node.size, dtype=bool)
    whole = np.zeros(pair_node.size, dtype=bool)  # pairs of nodes searched as (samples, k) blocks
    k = _pairs_per_node(pair_node)
    if k:
        whole = np.repeat(~sparse.reshape(-1, k).any(axis=1), k)
        for p in _chunks(plen, np.flatnonzero(whole), k):
            pair, code, H = _block_bins(coded, table, fold, histogram, occupancy, sample, starts,
                                        sizes, pair_node[p][::k], pair_feat[p].reshape(-1, k))
            c, varies[p] = _candidates(coded, pair, code, H, exact, p, pair_node, pair_rank,
                                       pair_feat, key_width, keep)
            parts.append(c)
    for group, bins in ((np.flatnonzero(~sparse & ~whole), _dense_bins),
                        (np.flatnonzero(sparse & ~whole), _sorted_bins)):
        for p in _chunks(plen, group):
            at = segment_ranges(starts[pair_node[p]], plen[p])
            code = np.take(table, np.repeat(pair_feat[p] * coded.n_samples, plen[p]) + np.take(sample, at))
            pair, code, H = bins(histogram, occupancy, coded.n_values[pair_feat[p]], plen[p], at,
                                 code, fold)
            c, varies[p] = _candidates(coded, pair, code, H, exact, p, pair_node, pair_rank,
                                       pair_feat, key_width, keep)
            parts.append(c)
    return Candidates.join(parts, parts[0].sums.shape[0] if parts else 0), varies


def _pairs_per_node(pair_node: np.ndarray) -> int:
    """The number of pairs of every node when it is the same for all (0 otherwise)."""
    if pair_node.size == 0:
        return 0
    runs = np.diff(np.flatnonzero(np.r_[True, pair_node[1:] != pair_node[:-1], True]))
    return int(runs[0]) if (runs == runs[0]).all() else 0


def _chunks(plen: np.ndarray, group: np.ndarray, k: int = 1):
    """``group`` (pairs) in runs of about ``CHUNK`` samples, cut between runs of ``k`` pairs."""
    ends = np.cumsum(plen[group])
    cuts = np.searchsorted(ends, np.arange(CHUNK, ends[-1] if ends.size else 0, CHUNK))
    cuts = np.unique(cuts - cuts % k)
    for a, b in zip(np.r_[0, cuts], np.r_[cuts, group.size]):
        if b > a:
            yield group[a:b]


def _block_bins(coded, table, fold, histogram, occupancy, sample, starts, sizes, nodes, feats):
    """The non-empty bins (pair, code, sums) of the pairs of ``nodes`` with the features
    ``feats`` (nodes, k): every feature's codes of a node's samples read as one block."""
    k = feats.shape[1]
    n_values = coded.n_values[feats]
    base = np.cumsum(n_values).reshape(feats.shape) - n_values  # the bins of pair (node, slot)
    e = segment_ranges(starts[nodes], sizes[nodes])
    owner = np.repeat(np.arange(nodes.size), sizes[nodes])
    index = np.take(feats * coded.n_samples, owner, axis=0)
    index += np.take(sample, e)[:, None]
    bins = np.take(table, index) + np.take(base * fold, owner, axis=0)
    H = histogram(bins.ravel(), np.repeat(e, k), int(n_values.sum()))
    ne = np.flatnonzero(H[occupancy] > 0)
    pair = np.searchsorted(base.ravel(), ne, side="right") - 1
    return pair, ne - np.take(base, pair), np.stack([np.take(h, ne) for h in H])


def _dense_bins(histogram, occupancy, n_values, plen, at, code, fold):
    """The non-empty bins (pair, code, sums) of the histograms of the pairs' codes."""
    base = np.cumsum(n_values) - n_values
    H = histogram(np.repeat(base * fold, plen) + code, at, int(n_values.sum()))
    ne = np.flatnonzero(H[occupancy] > 0)
    pair = np.searchsorted(base, ne, side="right") - 1
    return pair, ne - np.take(base, pair), np.stack([np.take(h, ne) for h in H])


def _sorted_bins(histogram, occupancy, n_values, plen, at, code, fold):
    """The same from the pairs' codes sorted (each bin's samples kept in their order)."""
    pair = np.repeat(np.arange(plen.size, dtype=np.int64), plen)
    key = (((pair << 16) | (code // fold)) << 20) | np.arange(at.size)  # pair, code, position
    key.sort()
    where = key & (2**20 - 1)
    key >>= 20
    new = np.ones(key.size, dtype=bool)
    np.not_equal(key[1:], key[:-1], out=new[1:])
    run = np.cumsum(new) - 1
    first = key[new]
    H = histogram(run * fold + np.take(code, where) % fold, np.take(at, where), int(run[-1]) + 1)
    return first >> 16, first & (2**16 - 1), np.stack(H)


def _candidates(coded, pair, code, H, exact, p, pair_node, pair_rank, pair_feat, key_width, keep):
    """The candidates between consecutive non-empty bins of each pair (more than
    ``FEATURE_THRESHOLD`` apart), with the running sums of the bins; and whether each pair's
    feature takes several values."""
    counts = np.bincount(pair, minlength=p.size)
    P = segment_cumsum(H, counts, exact)
    f = np.take(pair_feat[p], pair)
    value = coded.value(f, code)
    ok = (pair[1:] == pair[:-1]) & (value[1:] > value[:-1] + FEATURE_THRESHOLD)
    i = np.flatnonzero(ok)
    q = np.take(p, np.take(pair, i))
    node, key, sums = np.take(pair_node, q), np.take(pair_rank, q) * key_width + code[i], np.take(P, i, axis=1)
    pick, score = keep(node, key, sums)
    i = np.take(i, pick)
    last = np.cumsum(counts) - 1  # every pair has a non-empty bin
    first = last - counts + 1
    cands = Candidates(np.take(node, pick), np.take(key, pick), np.take(f, i), np.take(code, i),
                       np.take(code, i + 1), np.take(sums, pick, axis=1), score)
    return cands, np.take(value, last) > np.take(value, first) + FEATURE_THRESHOLD
