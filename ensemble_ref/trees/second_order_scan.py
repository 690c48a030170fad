r"""The scan for the best split of every node of one level of a second-order tree.

For each node and each feature, the candidates are the thresholds between two
neighbouring codes of its samples (sorted within the node); the bracket of
``eq-xgb-gain`` is evaluated at all of them at once and the best is chosen with
xgboost's scan order and tie rules: missing values first on the right (upwards),
then on the left (downwards), plus "missing" against "present". Every candidate is
scored, and each node's split chosen, by the one split selector of
:mod:`ensemble_ref.trees.second_order_rules` (with the library's rules); the grower that
uses this scan is :func:`ensemble_ref.trees.second_order_tree.grow_tree`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .engine import MISSING, Codes, row_blocks, segment_argmax, segment_ids, segment_prefix_sums
from .second_order_rules import (
    LEFT,
    LEFT_MISSING,
    MISSING_LEFT,
    PRESENT_LEFT,
    RIGHT,
    RIGHT_MISSING,
    candidate_brackets,
    parent_terms,
    select,
)

if TYPE_CHECKING:
    from .second_order_rules import TreeParams


class _LevelScan:
    """Every candidate split of every node of one level, with xgboost's scan order."""

    def __init__(self, data: Codes, codes: np.ndarray, S: np.ndarray, g: np.ndarray,
                 h: np.ndarray, features: np.ndarray, level_nodes: list, bounds: np.ndarray,
                 p: TreeParams) -> None:
        self.data, self.codes, self.S, self.features, self.bounds, self.p = (
            data, codes, S, features, bounds, p)
        self.new = data.scratch  # the level's large arrays live in buffers of the fit
        self.G = np.array([nd.G for nd in level_nodes])
        self.H = np.array([nd.H for nd in level_nodes])
        self.seg, self.last = segment_ids(bounds), bounds[1:] - 1
        self.forward = data.need_forward[features]
        self._candidate_positions()
        # PG, PH: sums of g, h over the present values up to each position, per node;
        # NG, NH: the sums over the node's present values
        self.PG = segment_prefix_sums(g, S, bounds, self.present, self.new, "PG")
        self.PH = segment_prefix_sums(h, S, bounds, self.present, self.new, "PH")
        self.NG, self.NH = self.PG[:, self.last], self.PH[:, self.last]
        self.parent32 = parent_terms(self.G, self.H, p)
        self.sizes = np.diff(bounds)
        self.Gn, self.Hn, self.parent_n = self.G[self.seg], self.H[self.seg], self.parent32[self.seg]
        with np.errstate(divide="ignore", invalid="ignore"):
            self._best_of_each_kind()
        self.split, self.f_best, self.kind, self.bracket = select(self.best, p)

    def _candidate_positions(self) -> None:
        """cand[k, r]: a threshold may follow position r, because r + 1 is in the same node
        and holds a larger present value; present[k, r]: the value is not missing."""
        self.cand = self.new("cand", self.S.shape, bool)
        self.cand[...] = True
        self.cand[:, self.last] = False
        self.present, self.n_missing = None, None  # None: all present
        read = np.flatnonzero(self.data.need_codes[self.features])  # features with ties or NaN
        if read.size == 0:
            return
        C = self.codes[read[:, None], self.S[read]]  # the codes in sorted order
        self.cand[read, :-1] &= C[:, 1:] != C[:, :-1]
        if self.data.any_missing:
            self.present = np.ones(self.S.shape, dtype=bool)
            self.present[read] = C != MISSING
            self.cand[read, :-1] &= self.present[read, 1:]
            self.n_missing = np.add.reduceat(~self.present, self.bounds[:-1], axis=1, dtype=np.intp)

    def _rounded_brackets(self, GL, HL, GR, HR, parent, ok, out) -> np.ndarray:
        """Brackets rounded to float32 (as the library stores them) into ``out``; -inf where
        not ``ok`` or not a candidate of the selector."""
        return candidate_brackets(GL, HL, GR, HR, parent, self.p, ok=ok, out=out)

    def _best_of_each_kind(self) -> None:
        """best[kind, k, s]: the best rounded bracket of feature k in node s among the
        candidates of each kind; at[scan, k, s]: the position of the scan's best (the
        first one met: upwards the first, downwards the last)."""
        shape = self.NG.shape
        self.best = np.full((4, *shape), -np.inf, dtype=np.float32)
        self.at = np.zeros((2, *shape), dtype=np.intp)
        F = np.flatnonzero(self.forward)  # missing right, upwards
        if F.size:
            right = self._scan(F, self._right_children)
            self.best[RIGHT, F], self.at[0, F] = segment_argmax(right, self.bounds)
        left = self._scan(None, self._left_children)  # missing left, downwards
        self.best[LEFT], self.at[1] = segment_argmax(left, self.bounds, last=True)
        if self.n_missing is not None:  # splits of "present" from "missing"
            ok = (self.n_missing > 0) & (self.n_missing < np.diff(self.bounds))
            gain = self._rounded_brackets(self.NG, self.NH, self.G - self.NG, self.H - self.NH,
                                          self.parent32, ok, np.empty(shape, np.float32))
            self.best[RIGHT_MISSING, F], self.best[LEFT_MISSING] = gain[F], gain

    def _scan(self, rows: np.ndarray | None, children) -> np.ndarray:
        """Rounded brackets at every position of the features ``rows`` (None: all), where
        ``children(k)`` gives (G_L, H_L, G_R, H_R) for the features ``k``."""
        n_rows = self.S.shape[0] if rows is None else rows.size
        out = self.new("brackets", (n_rows, self.S.shape[1]), np.float32)
        for block in row_blocks(n_rows, self.S.shape[1]):  # small temporaries, in cache
            k = block if rows is None else rows[block]
            self._rounded_brackets(*children(k), self.parent_n, self.cand[k], out[block])
        return out

    def _hessian_sums(self, k) -> tuple[np.ndarray, np.ndarray]:
        """PH and NH of the features ``k``; one row for all of them when the hessian sums
        are the same for every feature (equal whole hessians, no missing values)."""
        return (self.PH[:1], self.NH[:1]) if self.PH.strides[0] == 0 else (self.PH[k], self.NH[k])

    def _right_children(self, k) -> tuple:
        """Missing values right: the left child holds the present values up to r."""
        (PG, (PH, _)) = self.PG[k], self._hessian_sums(k)
        return PG, PH, self.Gn - PG, self.Hn - PH

    def _left_children(self, k) -> tuple:
        """Missing values left: the right child holds the present values above r."""
        PH, NH = self._hessian_sums(k)
        GR = np.repeat(self.NG[k], self.sizes, axis=1) - self.PG[k]
        HR = np.repeat(NH, self.sizes, axis=1) - PH
        return self.Gn - GR, self.Hn - HR, GR, HR

    def best_split(self, s: int) -> tuple | None:
        """The best split of node ``s``: (feature index, c_lo, default_left, threshold,
        rounded bracket, (G_L, H_L, G_R, H_R)); None when no candidate qualifies."""
        if not self.split[s]:
            return None
        f_k, kind, bracket = int(self.f_best[s]), int(self.kind[s]), float(self.bracket[s])
        r = int(self.at[0 if kind == RIGHT else 1, f_k, s])
        return (f_k, *self._decode(s, f_k, kind, r), bracket, self._children(s, f_k, kind, r))

    def _decode(self, s: int, f_k: int, kind: int, r: int) -> tuple[int, bool, float]:
        """Code boundary ``c_lo``, direction of missing values and threshold of a candidate."""
        f, code, S = int(self.features[f_k]), self.codes[f_k], self.S[f_k]
        if kind in (RIGHT, LEFT):  # split between positions r and r + 1
            c_lo = int(code[S[r]])
            return c_lo, kind == LEFT, self.data.threshold(f, c_lo, int(code[S[r + 1]]))
        a, b = self.bounds[s], self.bounds[s + 1]
        if kind == RIGHT_MISSING:  # present left, missing right
            n_present = b - a - int(self.n_missing[f_k, s])
            threshold = self.data.missing_threshold(f, int(code[S[a + n_present - 1]]), True)
            return PRESENT_LEFT, False, threshold
        return MISSING_LEFT, True, self.data.missing_threshold(f, int(code[S[a]]), False)

    def _children(self, s: int, f_k: int, kind: int, r: int) -> tuple:
        """(G_L, H_L, G_R, H_R) of a candidate."""
        G, H = float(self.G[s]), float(self.H[s])
        NG, NH = float(self.NG[f_k, s]), float(self.NH[f_k, s])
        if kind in (RIGHT, LEFT):
            GLr, HLr = float(self.PG[f_k, r]), float(self.PH[f_k, r])  # present values up to r
            GL, HL = (GLr, HLr) if kind == RIGHT else (G - (NG - GLr), H - (NH - HLr))
        else:
            GL, HL = (NG, NH) if kind == RIGHT_MISSING else (G - NG, H - NH)
        return GL, HL, G - GL, H - HL
