"""The self-checks accept correct solutions and reject wrong ones with a useful message.

Each check is given (a) the reference implementation itself, (b) a solution
written the way a student would, from the formula, and (c) wrong solutions that
make the usual mistakes. (a) and (b) must pass and print the confirmation; every
(c) must raise an ``AssertionError`` that names the check and the case, shows what
was received and which equation to look at, and never the reference's value.
"""

from __future__ import annotations

import numpy as np
import pytest
from selfcheck_cases import CASES, _sigmoid, _update  # tests/ is on pytest's path

from ensembles_verified import selfcheck
from ensembles_verified.selfcheck.engine import _fmt

MODULES = ("bagging", "boosting", "combining", "diversity", "explain", "mixture", "modern", "practice", "scale",
           "trees")

# the checks that judge an answer by analysis rather than against a list of mistakes, and the
# line that explains the first wrong solution of CASES
EXPLAINED = {"check_best_threshold": "your threshold: the split is right but s is a data value",
             "check_goss_weights": "your sampled rows keep weight 1: the factor that makes the sample "
                                   "unbiased is missing"}


def test_every_check_is_tested():
    import importlib

    modules = [importlib.import_module(f"ensembles_verified.selfcheck.{m}") for m in MODULES]
    assert sorted(CASES) == sorted(n for m in modules for n in m.__all__) == sorted(selfcheck.__all__)


def test_every_module_runs_its_checks_on_the_one_engine():
    """No module keeps its own copy of the engine: the calls, the comparison, the seeds are the engine's."""
    import importlib
    import inspect

    for name in MODULES:
        source = inspect.getsource(importlib.import_module(f"ensembles_verified.selfcheck.{name}"))
        assert "from .engine import" in source and "_run(" in source, name
        assert "def _run" not in source and "check_random_state" not in source, name
        assert "student_fn(" not in source.replace("``student_fn(", ""), name  # only the engine calls it


@pytest.mark.parametrize("name", sorted(CASES))
def test_check_accepts_correct_solutions(name, capsys):
    check = getattr(selfcheck, name)
    for fn in CASES[name][0]:
        check(fn)
        out = capsys.readouterr().out
        assert out.startswith(f"\u2714 {name}: your function agrees with "), out


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("seed", [0, 1, 2026])
def test_check_rejects_wrong_solutions(name, seed, capsys):
    check = getattr(selfcheck, name)
    for k, fn in enumerate(CASES[name][1]):
        with pytest.raises(AssertionError) as info:
            check(fn, random_state=seed)
        message = str(info.value)
        assert message.startswith(f"{name}: case "), message
        assert "received:" in message and "expected" not in message, message
        # explained in the book's terms: the equation to look at, and how to repeat the case
        assert "look at: " in message, message
        assert f"random_state={seed} repeats these cases" in message, message
        assert "\u2714" not in capsys.readouterr().out, f"wrong solution {k} printed a pass"


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_first_wrong_solution_is_recognised_as_a_usual_mistake(name):
    check = getattr(selfcheck, name)
    with pytest.raises(AssertionError, match=EXPLAINED.get(name, "your value is what .* gives")):
        check(CASES[name][1][0], random_state=3)


@pytest.mark.parametrize("name", sorted(CASES))
def test_cases_are_fresh_and_repeatable(name, capsys):
    """Without a seed the cases change from call to call; with one they are repeated."""
    check = getattr(selfcheck, name)
    seen = []

    def spy(*args):
        seen.append(", ".join(map(_fmt, args)))  # a generator shown by its seed, not its address
        return CASES[name][0][0](*args)

    for seed in (None, None, 7, 7):
        check(spy, random_state=seed)
        seen.append("|")
    calls = "".join(seen).split("|")
    assert calls[0] != calls[1] and calls[2] == calls[3]


def test_other_losses_are_checked_against_their_own_reference(capsys):
    selfcheck.check_loss_gradient(lambda y, F: -y * np.exp(-y * F), loss="exponential")
    selfcheck.check_loss_hessian(lambda y, F: np.exp(-y * F), loss="exponential")
    selfcheck.check_loss_gradient(lambda y, F: F - y, loss="squared_error")
    assert capsys.readouterr().out.count("\u2714") == 3
    with pytest.raises(AssertionError, match="exponential_loss_gradient"):
        selfcheck.check_loss_gradient(lambda y, F: _sigmoid(F) - y, loss="exponential")
    with pytest.raises(ValueError, match="loss must be one of"):
        selfcheck.check_loss_gradient(lambda y, F: F - y, loss="hinge")


def test_a_function_that_raises_is_reported_with_its_case():
    def broken(G, H, lam):
        raise ZeroDivisionError("lambda forgotten")

    with pytest.raises(AssertionError, match=r"(?s)case 1 of \d+.*raised ZeroDivisionError: lambda "
                                             r"forgotten") as info:
        selfcheck.check_leaf_weight(broken)
    assert isinstance(info.value.__cause__, ZeroDivisionError)


def test_missing_return_wrong_shape_and_non_numbers_are_explained():
    with pytest.raises(AssertionError, match="received: None .does your function return"):
        selfcheck.check_oob_fraction(lambda N: None)
    with pytest.raises(AssertionError, match=r"shape should be \(6,\)"):
        selfcheck.check_adaboost_weight_update(lambda w, y, h, alpha: _update(w, y, h, alpha)[:-1])
    with pytest.raises(AssertionError, match="not a number"):
        selfcheck.check_oob_fraction(lambda N: "0.37")
    with pytest.raises(AssertionError, match="received: nan"):
        selfcheck.check_oob_fraction(lambda N: float("nan"))


def test_bad_arguments_raise_type_errors():
    with pytest.raises(TypeError, match="pass the name without parentheses"):
        selfcheck.check_oob_fraction(0.37)
    with pytest.raises(TypeError, match=r"3 positional argument\(s\).*\(G, H\)"):
        selfcheck.check_leaf_weight(lambda G, H: -G / H)


def test_cases_are_copies_a_function_may_modify_its_arguments(capsys):
    def in_place(w, y, h, alpha):
        w *= np.exp(-alpha * y * h)
        w /= w.sum()
        y[:] = 0  # vandalise the labels too: the reference must not see it
        return w

    selfcheck.check_adaboost_weight_update(in_place)
    assert "\u2714" in capsys.readouterr().out
