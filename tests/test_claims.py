"""The claim checker must pass true claims, reject false ones, and keep a ledger."""

import json

import numpy as np
import pytest

from ensemble_ref import ClaimError, Claims
from ensemble_ref.claims import LEDGER_ENV


def test_true_claims_pass_and_print(capsys):
    c = Claims("t")
    c.close("one is one", 1.0, 1.0)
    c.at_most("bound", [1, 2], [1, 3])
    c.holds("all positive", np.array([1, 2]) > 0)
    assert c.count == 3
    assert capsys.readouterr().out.count("\u2714") == 3


@pytest.mark.parametrize("call", [
    lambda c: c.close("off", 1.0, 1.1, atol=0.05),
    lambda c: c.close("nan is never close", np.nan, 1.0, atol=1e9),
    lambda c: c.at_most("violated", [1, 3], [2, 2]),
    lambda c: c.at_most("nan bound", [np.nan], [2]),
    lambda c: c.holds("false", [True, False]),
])
def test_false_claims_raise_with_statement(call):
    c = Claims("chapter-x", verbose=False)
    with pytest.raises(ClaimError, match="chapter-x#1"):
        call(c)


def test_bad_arguments():
    with pytest.raises(ValueError, match="chapter"):
        Claims("")
    with pytest.raises(ValueError, match="atol"):
        Claims("x").close("s", 1, 1, atol=-1)
    with pytest.raises(ValueError, match="slack"):
        Claims("x").at_most("s", 1, 1, slack=-1)


def test_ledger_records_every_claim(tmp_path, monkeypatch):
    monkeypatch.setenv(LEDGER_ENV, str(tmp_path))
    c = Claims("led", verbose=False)
    c.close("a", 2.0, 2.0 + 1e-9, atol=1e-6)
    with pytest.raises(ClaimError):
        c.holds("b", False)
    rows = [json.loads(x) for x in (tmp_path / "led.jsonl").read_text().splitlines()]
    assert [r["statement"] for r in rows] == ["a", "b"]
    assert [r["passed"] for r in rows] == [True, False]
    Claims("led", verbose=False)  # re-execution starts a fresh record
    assert (tmp_path / "led.jsonl").read_text() == ""
