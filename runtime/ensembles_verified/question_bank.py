"""The question bank of the answer checks: every question, its parameters and its hints.

Each derivation or experiment exercise that ends in a number or a formula has a
:class:`~ensembles_verified.question.Question` here, registered under the
exercise's label in ``QUESTIONS``: what it asks, the book's parameters, how a
variant draws its own, the precision the answer is compared at, the idea to look
at and a hint for each usual mistake. The answers are not here: the checks of
``ensembles_verified.answers`` compare a rounded answer with a slow, salted
digest of the rounded right one (``answer_digests.json``), written by the
instructors' tooling of the repository (``python -m tools.answer_digests``),
which holds the answers and the usual mistakes themselves (``tools/answer_bank.py``).
"""

from __future__ import annotations

import numpy as np

from .question import Question

__all__ = ["QUESTIONS"]

QUESTIONS: dict[str, Question] = {}


def _register(q: Question) -> None:
    QUESTIONS[q.label] = q


# --- chapter 1 -----------------------------------------------------------------------------------


def _draw_three_errors(rng):
    """Three distinct error rates below 1/2 (either case of the bound can bind, but not both: the
    largest rate differs from the sum of the other two, else the answer would be a given rate)."""
    while True:
        e = np.round(rng.uniform(0.02, 0.45, 3), 2)
        if len(set(e.tolist())) == 3 and abs(2 * e.max() - e.sum()) > 0.015:
            return dict(zip(("eps1", "eps2", "eps3"), e.tolist()))


_register(Question(
    "ex-intro-majority-bound",
    "the largest possible error of the majority vote of three classifiers that err with "
    "probabilities {eps1}, {eps2} and {eps3}",
    book={"eps1": 0.07, "eps2": 0.12, "eps3": 0.26},
    draw=_draw_three_errors,
    idea="a vote error needs two wrong members at once: count the wrong votes each vote error "
         "uses up, and ask which members must supply them; then check that an arrangement "
         "reaching your value exists.",
    hints={"markov": "your value counts only the total of the wrong votes; with error rates this "
                     "unequal no arrangement reaches it: look at which members every vote error "
                     "must involve.",
           "independent": "your value is the majority's error when the members err independently; "
                          "the question asks for the worst arrangement of the errors.",
           "worst-member": "your value is the worst member's error; the vote errs only where two "
                           "members err at once, so it depends on the others' errors too.",
           "union": "your value lets every wrong vote be a vote error; each vote error uses up "
                    "the wrong votes of two members."},
))

# --- chapter 2 -----------------------------------------------------------------------------------
_register(Question(
    "ex-bv-mean",
    "the expected squared error of the mean predictor on a fresh observation at a random point "
    "X, for N = {N} training points and noise standard deviation sigma = {sigma}",
    book={"N": 40, "sigma": 0.35},
    draw=lambda rng: {"N": int(rng.integers(10, 200)),
                      "sigma": round(float(rng.uniform(0.1, 1.0)), 2)},
    idea="average the decomposition over X: the variance and the noise do not depend on x, the "
         "bias does; average its square over X, using that the mean of f(X) is 1.",
    hints={"variance-only": "your value is the variance of the mean predictor; the question asks "
                            "for its whole expected error, bias and noise included.",
           "no-noise": "your value leaves out the noise of the fresh observation, which no "
                       "predictor can remove.",
           "no-bias": "your value leaves out the squared bias: a constant prediction misses f(x) "
                      "at almost every x."},
))

# --- chapter 3 -----------------------------------------------------------------------------------
_register(Question(
    "ex-crowds-three",
    "the accuracy p in (1/2, 1) at which the gain of the majority of three voters over one "
    "voter is largest",
    book={},
    idea="differentiate the gain in p and find its zero inside (1/2, 1).",
    hints={"p-one": "your value is where the majority's accuracy is largest; the question asks "
                    "where its gain over one voter is largest.",
           "middle": "your value is the middle of the interval; the gain is not symmetric about "
                     "it."},
))

_register(Question(
    "ex-crowds-hoeffding",
    "the limit, as the edge gamma tends to 0, of the ratio of the crowd size beyond which "
    "Hoeffding's bound guarantees a majority error of at most {delta} to the crowd size beyond "
    "which eq-condorcet-bound guarantees it",
    book={"delta": 0.02},
    draw=lambda rng: {"delta": round(float(rng.uniform(0.001, 0.3)), 3)},
    idea="solve each bound for the crowd size at the target error, then compare the two "
         "logarithms of the edge's terms for a small edge.",
    hints={"same": "your value says the two bounds need the same crowds for small edges; they fall "
                   "at the same rate, but one of them has a factor in front.",
           "inverted": "your value is the ratio the other way round: the question divides "
                       "Hoeffding's crowd size by the other.",
           "no-two": "your value misses a constant of the exponent of Hoeffding's bound for a sum "
                     "of M variables in [0, 1]."},
))


# --- chapter 4 -----------------------------------------------------------------------------------


def _draw_node(rng):
    """A two-class node and the size of the left child of its splits. The children's sizes
    differ (else the two ends tie) and neither is a class's count (else both children can be
    pure and the answer is the parent's impurity)."""
    while True:
        n0 = int(rng.integers(12, 40))
        n1 = int(rng.integers(4, n0))
        W_L = int(rng.integers(3, n0 + n1 - 2))
        if 2 * W_L != n0 + n1 and W_L not in (n0, n1):
            return {"n0": n0, "n1": n1, "W_L": W_L}


_register(Question(
    "ex-tree-gini-concave",
    "the largest Gini decrease of a split of a node with {n0} points of class 0 and {n1} of class 1 "
    "that sends exactly {W_L} points to the left child",
    book={"n0": 27, "n1": 13, "W_L": 17},
    draw=_draw_node,
    idea="with the children's sizes fixed, the closed form of the decrease depends on the split "
         "only through the difference of the children's class proportions: how does it vary "
         "with the number of class-1 points sent left, and where is it largest?",
    hints={"other-end": "your value is a split at one end of the possible ones, but not the better "
                        "end: compare the two extreme ways of placing the class-1 points.",
           "pure": "your value is the parent's impurity, which only two pure children remove; with "
                   "these sizes the children cannot both be pure."},
))

# --- chapter 5 -----------------------------------------------------------------------------------
_register(Question(
    "ex-oob-subsample",
    "the probability that a given point is out of bag when n points are drawn with "
    "replacement from N (a formula in N and n)",
    book={},
    variables={"N": (2, 500, True), "n": (1, 800, True)},
    precision=("significant", 8),
    idea="each of the n draws misses the point independently of the others.",
    hints={"limit": "your formula is a large-N limit; the question asks for the exact probability "
                    "at every N and n.",
           "full-bootstrap": "your formula draws N points; the question draws n.",
           "no-replacement": "your formula draws without replacement; the draws are independent "
                             "and each may pick any of the N points."},
))


def _draw_pasting(rng, low, high):
    """N points and a pasting (or subsample) size n between the shares low and high of N."""
    N = int(rng.integers(100, 3000))
    return {"N": N, "n": int(round(N * rng.uniform(low, high)))}


_register(Question(
    "ex-pasting-size",
    "the (real) number of draws with replacement from N = {N} points whose expected number of "
    "out-of-bag points equals that of a pasting sample of n = {n} points",
    book={"N": 1000, "n": 400},
    draw=lambda rng: _draw_pasting(rng, 0.2, 0.45),
    precision=("decimals", 2),
    idea="a point is out of bag for draws with replacement when every draw misses it; set that "
         "probability equal to the pasting one and solve for the number of draws.",
    hints={"limit": "your value uses the large-N limit of the out-of-bag probability; at N = {N} "
                    "the exact one differs by a fraction of a draw, which the answer's precision "
                    "shows.",
           "same-size": "your value is the pasting size itself; draws with replacement repeat "
                        "points, so they pick fewer distinct ones.",
           "in-for-out": "your value makes the draws pick, on average, as many points as pasting "
                         "leaves out; compare the probabilities of being out of bag."},
))
_register(Question(
    "ex-oob-enough-members",
    "the (real) number of members beyond which the expected number of points without an "
    "out-of-bag member is at most one, for pasting samples of n = {n} of N = {N} points",
    book={"N": 200, "n": 120},
    draw=lambda rng: _draw_pasting(rng, 0.3, 0.9),
    idea="a point has no out-of-bag member when every one of the M members' samples holds it; "
         "the members draw independently, so take logarithms.",
    hints={"bootstrap": "your value is the bootstrap's number of members; these members draw "
                        "their samples without replacement.",
           "in-for-out": "your value uses the probability that the point is out of a member's "
                         "sample where the probability that it is in it belongs.",
           "no-log": "your value divides by a probability itself; the probability that M members "
                     "all hold the point is a power in M."},
))

# --- chapter 6 -----------------------------------------------------------------------------------
_register(Question(
    "ex-rf-per-tree",
    "the probability that at most j = {j} of the s = {s} internal nodes of a tree have an "
    "informative candidate when the m = {m} candidates are drawn anew at every split, from "
    "d = {d} features of which k = {k} are informative",
    book={"d": 12, "k": 2, "m": 3, "s": 15, "j": 2},
    draw=lambda rng: {"d": int(rng.integers(10, 30)), "k": int(rng.integers(1, 4)),
                      "m": int(rng.integers(2, 5)), "s": int(rng.integers(6, 16)),
                      "j": int(rng.integers(1, 4))},
    idea="a node is blind when none of its m distinct candidates is informative; the nodes draw "
         "their candidates independently, so count the nodes that are not blind.",
    hints={"per-tree": "your value is the per-tree scheme's: there the nodes are blind all "
                       "together or not at all; here each node draws its own candidates.",
           "all-blind": "your value counts only the trees with no node that can use the signal; "
                        "up to j = {j} such nodes are allowed.",
           "exactly": "your value counts only the trees with exactly j = {j} such nodes; at most "
                      "j are asked for.",
           "replacement": "your value draws the candidates with replacement; a node's m "
                          "candidates are distinct features."},
))

# --- chapter 7 -----------------------------------------------------------------------------------
_register(Question(
    "ex-vote-three",
    "the probability that hard and soft voting disagree when one member gives the second "
    "class the probability q1 = {q1} and two others give it probabilities drawn independently "
    "and uniformly on [0, 1]",
    book={"q1": 0.8},
    draw=lambda rng: {"q1": round(float(rng.uniform(0.55, 0.95)), 2)},
    idea="say when each rule picks the second class in terms of the two uniform probabilities: "
         "both conditions are regions of the unit square, and the answer is an area.",
    hints={"one-way": "your value counts one of the two ways of disagreeing; the other way is "
                      "possible too.",
           "whole-triangle": "your value counts every point where soft voting says class 1; hard "
                             "voting says class 1 on part of them too.",
           "three-uniform": "your value treats the first member like the other two; its "
                            "probability is fixed."},
))


def _draw_others(rng):
    """The accuracies of members 2 to 5, decreasing."""
    a = np.round(np.sort(rng.uniform(0.55, 0.8, 4))[::-1], 2)
    return dict(zip(("a2", "a3", "a4", "a5"), a.tolist()))


_register(Question(
    "ex-vote-weights",
    "the accuracy a1 of the first member from which on the most accurate rule ignores four "
    "independent members right with probabilities ({a2}, {a3}, {a4}, {a5})",
    book={"a2": 0.7, "a3": 0.6, "a4": 0.6, "a5": 0.6},
    draw=_draw_others,
    idea="find the pattern of the other members' votes that the first member finds hardest to "
         "outweigh, and compare the weights there.",
    hints={"largest-other": "your value compares the first member with the best of the others "
                            "alone; all four can vote against it together.",
           "odds-sum": "your value adds the others' odds; the weights that add are the "
                       "logarithms of the odds."},
))

# --- chapter 8 -----------------------------------------------------------------------------------


def _draw_classes(rng):
    """The sizes of a rare and a common class, and an edge."""
    n_plus = int(rng.integers(10, 200))
    return {"n_plus": n_plus, "n_minus": int(rng.integers(2 * n_plus, 3000)),
            "gamma": round(float(rng.uniform(0.03, 0.2)), 3)}


_register(Question(
    "ex-adaboost-rounds",
    "the (real) number of rounds beyond which AdaBoost's training error is zero when it starts "
    "from class-balanced weights on n_plus = {n_plus} and n_minus = {n_minus} points, with weak "
    "learners of edge at least gamma = {gamma}",
    book={"n_plus": 50, "n_minus": 300, "gamma": 0.07},
    draw=_draw_classes,
    idea="the proof of the bound does not need uniform starting weights: what does it bound then, "
         "and how small can that quantity be without being zero?",
    hints={"uniform": "your value treats the starting weights as uniform; here each class has "
                      "total weight 1/2.",
           "heavier": "your value uses the weight of a point of the rare class; the guarantee must "
                      "reach below the lightest point's weight.",
           "no-two": "your value misses a constant of the exponent of the bound on the training "
                     "error (the product of the Z_t)."},
))
_register(Question(
    "ex-adaboost-samme",
    "the factor by which one SAMME round with learning rate nu = {nu} multiplies the "
    "exponential loss, for K = {K} classes and weighted error epsilon = {eps}",
    book={"K": 4, "eps": 0.41, "nu": 0.5},
    draw=lambda rng: {"K": int(rng.integers(3, 8)), "eps": round(float(rng.uniform(0.2, 0.6)), 3),
                      "nu": round(float(rng.uniform(0.1, 0.9)), 2)},
    idea="the loss after a step, relative to the loss before it, is g of that step (the proof of "
         "thm-samme); evaluate g at the step the round takes.",
    hints={"no-shrink": "your value is the factor of the full round; this round takes the step "
                        "nu beta*.",
           "power": "your value raises the full round's factor to the power nu; the two "
                    "exponentials of g do not scale together.",
           "chord": "your value is the convexity bound between g(0) and g(beta*); the factor is "
                    "g itself at the step.",
           "two-class": "your value is the two-class factor with shrinkage; with K classes the "
                        "step and the exponents of g differ."},
))

# --- chapter 9 -----------------------------------------------------------------------------------
_register(Question(
    "ex-gb-linear-ols",
    "the (real) number of stages M at which the excess of the training mean squared error of "
    "boosted least-squares lines (learning rate nu = {nu}) over that of least squares has "
    "fallen to {q} of its excess at F_0",
    book={"nu": 0.15, "q": 0.01},
    draw=lambda rng: {"nu": round(float(rng.uniform(0.05, 0.5)), 2),
                      "q": float(rng.choice([0.2, 0.1, 0.05, 0.02, 0.01, 0.001]))},
    precision=("significant", 3),
    idea="split the residual y - F_M into the least-squares residual and the part of the "
         "correction still to make; the two are orthogonal, so their squared norms add.",
    hints={"not-squared": "your value makes the part of the correction still to make fall to "
                          "{q}; the training error measures that part through its squared norm.",
           "small-nu": "your value replaces the logarithm of the factor each stage keeps by its "
                       "first-order approximation; use the exact logarithm at nu = {nu}."},
))

# --- chapter 10 ----------------------------------------------------------------------------------


def _draw_weighted_leaf(rng):
    """Two groups of points, one of them weighted; the leaf's weight is not near zero, and lambda
    is not so small against the total weight that forgetting it passes at 3 significant digits."""
    while True:
        p = {"n1": int(rng.integers(2, 30)), "v": float(rng.choice([0.5, 2.0, 3.0, 4.0, 5.0])),
             "r1": round(float(rng.normal()), 2), "n2": int(rng.integers(2, 30)),
             "r2": round(float(rng.normal()), 2), "lam": round(float(rng.uniform(0.5, 10)), 1)}
        weight = p["v"] * p["n1"] + p["n2"]
        if abs(p["v"] * p["n1"] * p["r1"] + p["n2"] * p["r2"]) > 0.5 and p["lam"] > 0.01 * weight:
            return p


_register(Question(
    "ex-xgb-shrunken-mean",
    "the optimal weight, for the half squared error and lambda = {lam}, of a leaf holding "
    "n1 = {n1} points of sample weight {v} whose residuals have mean {r1} and n2 = {n2} points "
    "of weight 1 whose residuals have mean {r2}",
    book={"n1": 8, "v": 3.0, "r1": 0.9, "n2": 5, "r2": -0.4, "lam": 2.5},
    draw=_draw_weighted_leaf,
    precision=("significant", 3),
    idea="a sample weight multiplies a point's gradient and its hessian; write the leaf's sums G "
         "and H with the weights and take the optimal weight of eq-xgb-leaf-weight.",
    hints={"unweighted": "your value ignores the sample weights; each point's g and h are "
                         "multiplied by its weight.",
           "weights-in-G-only": "your value weights the gradients but counts points in H; the "
                                "hessians are weighted too, so lambda competes with the total "
                                "weight.",
           "no-shrink": "your value ignores lambda, which shrinks the weight toward zero.",
           "sign": "your value has the wrong sign: a residual is minus a gradient."},
))

# --- chapter 11 ----------------------------------------------------------------------------------


def _draw_goss(rng):
    """N, a and b with whole counts a N and b N (at least two sampled rows) and an even number
    of rows outside the top, half of which have gradient c and half -c."""
    while True:
        p = {"N": int(20 * rng.integers(1, 7)), "a": float(rng.choice([0.1, 0.2, 0.25, 0.3])),
             "b": float(rng.choice([0.1, 0.2, 0.25])), "c": round(float(rng.uniform(0.05, 0.5)), 2)}
        top, sampled = p["N"] * p["a"], p["N"] * p["b"]
        whole = all(abs(x - round(x)) < 1e-9 for x in (top, sampled))
        if whole and round(sampled) >= 2 and round(p["N"] - top) % 2 == 0:
            return p


_register(Question(
    "ex-modern-goss-proof",
    "the standard deviation of the GOSS estimate of the sum of all gradients for N = {N} rows, "
    "a = {a} and b = {b}, when the rows outside the top have gradients {c} (half of them) and "
    "-{c} (the other half)",
    book={"N": 40, "a": 0.25, "b": 0.2, "c": 0.3},
    draw=_draw_goss,
    precision=("significant", 4),
    idea="only the sampled rows vary; the estimate is the factor times the sum of a simple random "
         "sample, drawn without replacement, of the rows outside the top.",
    hints={"replacement": "your value treats the sampled rows as drawn independently, with "
                          "replacement; GOSS draws distinct rows, so two rows are in the sample "
                          "together less often than independence would have it.",
           "bernoulli": "your value keeps each row outside the top independently; GOSS samples a "
                        "fixed number of rows.",
           "no-factor": "your value leaves out the weight that each sampled row carries.",
           "variance": "your value is a variance; the question asks for a standard deviation."},
))

# --- chapter 12 ----------------------------------------------------------------------------------
def _draw_em_step(rng):
    """Four targets, two constant experts on either side of zero and a gate's start."""
    return {"y1": round(float(rng.normal(-1, 0.8)), 1), "y2": round(float(rng.normal(0, 0.8)), 1),
            "y3": round(float(rng.normal(0, 0.8)), 1), "y4": round(float(rng.normal(1, 0.8)), 1),
            "m1": round(-float(rng.uniform(0.5, 2)), 1), "m2": round(float(rng.uniform(0.5, 2)), 1),
            "pi1": round(float(rng.uniform(0.2, 0.8)), 2)}


_register(Question(
    "ex-moe-constant-gate",
    "the gate's weight pi_1 after one EM step from pi_1 = {pi1}, for a gate without inputs and two "
    "experts without slopes that predict the constants {m1} and {m2} with variance 1, on the "
    "targets ({y1}, {y2}, {y3}, {y4})",
    book={"y1": -1.2, "y2": -0.3, "y3": 0.4, "y4": 2.1, "m1": -1.0, "m2": 1.0, "pi1": 0.3},
    draw=_draw_em_step,
    precision=("significant", 3),
    idea="the E-step computes each target's responsibility by Bayes' rule with the current gate "
         "as prior (eq-moe-responsibility); the gate's M-step then needs only the "
         "responsibilities.",
    hints={"no-prior": "your responsibilities leave out the gate: Bayes' rule weights each "
                       "expert's density by its current gate probability.",
           "hard": "your value assigns each target wholly to one expert; EM shares each target "
                   "between the experts in proportion to their responsibilities.",
           "not-divided": "your value is not a weight: the gate's weights sum to one over the "
                          "experts."},
))
_register(Question(
    "ex-moe-balance-proof",
    "the smallest value of the balancing loss over all batches, with two experts and arg-max "
    "routing (ties to the lower index)",
    book={},
    idea="write the loss as a sum over inputs of the loads of the experts each input's gate "
         "leans to; for given loads, choose each input's gate to make its term smallest, then "
         "choose the loads.",
    hints={"agree": "your value is the smallest loss when the routing agrees with the gate "
                    "(phi = P); arg-max routing lets the two differ.",
           "example": "your value is the loss of the chapter's example of part 3; other batches "
                      "go lower.",
           "share-bound": "your value is a lower bound that no batch attains: an input's gate "
                          "cannot put its whole probability on its own expert and still have "
                          "the smallest possible share of it.",
           "no-factor": "your value leaves out the factor E of the balancing loss."},
))

# --- chapter 13 ----------------------------------------------------------------------------------


def _draw_disagreement(rng):
    """M members and a mean accuracy p for which M p is far from a whole number."""
    while True:
        p = {"M": int(rng.integers(3, 13)), "p": round(float(rng.uniform(0.55, 0.95)), 2)}
        if 0.15 <= (p["M"] * p["p"]) % 1 <= 0.85:
            return p


_register(Question(
    "ex-div-kw",
    "the largest mean disagreement (over the ordered pairs of distinct members) that M = {M} "
    "members whose mean accuracy is p = {p} can have, over all data sets",
    book={"M": 4, "p": 0.7},
    draw=_draw_disagreement,
    precision=("significant", 3),
    idea="on every point the share of right members is a multiple of 1/M; for the given mean "
         "accuracy, find the smallest variance that shares on this grid can have "
         "(eq-div-kw).",
    hints={"uncapped": "your value takes the variance of the shares of right members to be 0, "
                       "which needs M p right members on every point; with M = {M} and p = {p} "
                       "that is not a whole number.",
           "no-factor": "your value averages over all M^2 pairs, each member paired with itself "
                        "too; the measure averages over the M(M - 1) ordered pairs of distinct "
                        "members."},
))

# --- chapter 16 ----------------------------------------------------------------------------------


def _draw_workers(rng):
    """Rows, bins and workers for which the level lies between 2 and 16."""
    while True:
        p = {"N": int(10 ** rng.integers(6, 10)), "B": int(rng.choice([64, 128, 256])),
             "C": int(rng.choice([4, 8, 16, 32, 64]))}
        if 4 <= p["N"] / (4 * p["B"] * (p["C"] - 1)) <= 2**16:
            return p


_register(Question(
    "ex-scale-workers",
    "the level l (a real number, the root being level 0) of a depth-wise tree at which the ring "
    "all-reduce of the level's histograms takes as long as building them, on C = {C} workers, "
    "for N = {N} rows, B = {B} bins and a = c",
    book={"N": 10**7, "B": 256, "C": 8},
    draw=_draw_workers,
    precision=("significant", 3),
    idea="write the time to build the histograms of level l on C workers (every row is in one "
         "node of the level) and the time of the ring all-reduce of its nodes' histograms, and "
         "solve for the number of nodes, then for l.",
    hints={"limit": "your value takes the ring's factor 2(C - 1)/C at its limit 2; with C = {C} "
                    "workers it is not 2.",
           "no-ring": "your value lets each worker send its histograms once; in a ring all-reduce "
                      "each worker sends about twice the message (eq-scale-ring).",
           "no-hessian": "your value counts one number per bin and feature; a histogram holds two "
                         "sums there (eq-scale-allreduce).",
           "nodes-so-far": "your value counts the nodes of the whole tree down to level l; the "
                           "all-reduce of a level sends the histograms of that level's nodes "
                           "only."},
))
