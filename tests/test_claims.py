"""The claim checker must pass true claims, reject false ones, and keep a ledger."""

import json

import numpy as np
import pytest

from ensembles_verified import ClaimError, Claims, Rival
from ensembles_verified.claims import LEDGER_ENV


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


# ---------------------------------------------------------------- rivals and margins

def test_rival_ruled_out_records_margin(tmp_path, monkeypatch):
    monkeypatch.setenv(LEDGER_ENV, str(tmp_path))
    c = Claims("riv", verbose=False)
    # OOB fraction: the rival reads (1 - 1/N)^N as the fraction picked.
    c.close("fraction not picked", 0.3679, 0.3660, atol=0.005,
            rival=("(1-1/N)^N is the fraction picked", 1 - 0.3660))
    assert c.last_margin == pytest.approx(abs(0.3679 - 0.634) / 0.005)
    c.at_most("bound holds", 0.1, 0.2, rival=Rival("bound with wrong exponent", 0.05))
    assert c.last_margin == float("inf")
    c.at_most("bound holds with slack", 0.1, 0.2, slack=0.01,
              rival=Rival("rival lhs too big", 0.25, side="lhs"))
    assert c.last_margin == pytest.approx(5.0)
    c.holds("increases", np.diff([1, 2, 3]) > 0, rival=("constant", np.diff([1, 2, 3]) == 0))
    rows = [json.loads(x) for x in (tmp_path / "riv.jsonl").read_text().splitlines()]
    assert [r["rival"] for r in rows][:2] == ["(1-1/N)^N is the fraction picked",
                                              "bound with wrong exponent"]
    assert rows[1]["margin"] == "inf" and rows[0]["margin"] > 1
    assert all(r["passed"] for r in rows)


@pytest.mark.parametrize("call", [
    # the rival lies within the same tolerance: the check cannot tell them apart
    lambda c: c.close("weak", 0.50, 0.51, atol=0.03, rival=("no effect", 0.52)),
    lambda c: c.close("one element inside", [1.0, 2.0], [1.0, 2.0], atol=0.1,
                      rival=("same", [1.05, 2.05])),
    lambda c: c.at_most("bound", 0.1, 0.2, rival=("looser bound", 0.3)),
    lambda c: c.at_most("slack too wide", 0.1, 0.2, slack=0.5, rival=("tighter", 0.0)),
    lambda c: c.holds("true under both", True, rival=("rival also true", True)),
])
def test_rival_that_passes_raises(call, tmp_path, monkeypatch):
    monkeypatch.setenv(LEDGER_ENV, str(tmp_path))
    c = Claims("weak", verbose=False)
    with pytest.raises(ClaimError, match="cannot tell its claim from its rival"):
        call(c)
    row = json.loads((tmp_path / "weak.jsonl").read_text().splitlines()[0])
    assert row["passed"] is False and row["rival"]


def test_failed_claim_reported_before_rival():
    with pytest.raises(ClaimError, match="failed"):
        Claims("x", verbose=False).close("off", 1.0, 2.0, atol=0.1, rival=("r", 1.0))


def test_bad_rivals():
    c = Claims("x", verbose=False)
    with pytest.raises(TypeError, match="rival"):
        c.close("s", 1, 1, rival="just words")
    with pytest.raises(ValueError, match="rival statement"):
        c.close("s", 1, 1, rival=("", 2))
    with pytest.raises(ValueError, match="side"):
        c.at_most("s", 1, 2, rival=Rival("r", 0, side="middle"))


def test_verbose_line_names_rival_and_margin(capsys):
    Claims("x").close("e", 2.718, np.e, atol=1e-3, rival=("e is 3", 3.0))
    out = capsys.readouterr().out
    assert "Rules out: e is 3 (margin 282)" in out


def test_power_helpers():
    from ensembles_verified import power_against_rival, replications_for_power
    R = replications_for_power(delta=0.02, sd=0.5, k=4, power=0.99)
    se = 0.5 / np.sqrt(R)
    assert power_against_rival(0.02, se, k=4) >= 0.99
    assert power_against_rival(0.02, 0.5 / np.sqrt(R - 1), k=4) < 0.99 + 1e-9
    # Monte Carlo: the rival is rejected in at least 98% of 2000 simulated checks
    rng = np.random.default_rng(0)
    est = rng.normal(0.0, se, size=2000)
    assert np.mean(np.abs(est - 0.02) > 4 * se) > 0.98
    with pytest.raises(ValueError, match="power"):
        replications_for_power(0.1, 1.0, power=1.5)
    with pytest.raises(ValueError, match="sd"):
        replications_for_power(0.1, -1.0)


def test_mean_and_se_and_notebook_helpers():
    from ensembles_verified import mean_and_se, member_outputs, staged_error_curve
    m, se = mean_and_se([1.0, 2.0, 3.0])
    assert m == 2.0 and se == pytest.approx(1 / np.sqrt(3))
    with pytest.raises(ValueError, match="2 replications"):
        mean_and_se([1.0])
    with pytest.raises(ValueError, match="method"):
        member_outputs(object(), [[0]], method="score")
    with pytest.raises(TypeError, match="estimators_"):
        member_outputs(object(), [[0]])
    with pytest.raises(TypeError, match="staged_predict"):
        staged_error_curve(object(), [[0]], [0])


def test_numpy_scalars_in_tolerances_keep_the_ledger_json(tmp_path, monkeypatch):
    monkeypatch.setenv(LEDGER_ENV, str(tmp_path))
    c = Claims("np", verbose=False)
    c.at_most("bound", np.float64(0.1), np.float64(0.2), slack=np.float64(0.01),
              rival=("tighter", np.float64(0.0)))
    c.close("close", np.float32(1.0), np.float64(1.0), atol=np.float64(0.1), rival=("two", 2.0))
    rows = [json.loads(x) for x in (tmp_path / "np.jsonl").read_text().splitlines()]
    assert [r["passed"] for r in rows] == [True, True]


# -- at_least: measured >= threshold, the measured value under "Measured" ---------------

def test_at_least_passes_and_fails():
    c = Claims("t", verbose=False)
    c.at_least("reaches", [3, 4], [2, 4])
    c.at_least("within the slack", 1.95, 2.0, slack=0.1)
    assert c.count == 2
    for call in (lambda: c.at_least("short", [3, 1], [2, 2]),
                 lambda: c.at_least("nan never reaches", [np.nan], [0.0]),
                 lambda: c.at_least("beyond the slack", 1.8, 2.0, slack=0.1)):
        with pytest.raises(ClaimError, match="failed"):
            call()
    with pytest.raises(ValueError, match="slack"):
        c.at_least("s", 1, 1, slack=-1)


def test_at_least_records_measured_and_threshold(tmp_path, monkeypatch):
    monkeypatch.setenv(LEDGER_ENV, str(tmp_path))
    c = Claims("lower", verbose=False)
    c.at_least("difference > 4 s.e.", 0.5, 0.2, rival=Rival("no effect", 0.0, side="lhs"))
    entry = json.loads((tmp_path / "lower.jsonl").read_text())
    assert entry["measured"] == "0.5" and entry["expected"] == ">= 0.2"
    assert entry["tolerance"] == "slack=0" and entry["passed"]
    assert entry["rival"] == "no effect" and entry["rival_value"] == "0"
    assert entry["margin"] == "inf"  # the rival's 0 >= 0.2 fails, with no slack


def test_at_least_mirrors_at_most():
    """at_least(m, t) is at_most(t, m): same verdicts and margins, rival sides mirrored."""
    def outcome(call):
        c = Claims("m", verbose=False)
        try:
            call(c)
        except ClaimError as err:
            return "rival" if "cannot tell" in str(err) else "failed", c.last_margin
        return "ok", c.last_margin

    rng = np.random.default_rng(0)
    for _ in range(100):
        m, t, rv = rng.normal(size=3)
        slack = float(rng.uniform(0, 0.5))
        pairs = [(lambda c: c.at_least("s", m, t, slack=slack, rival=("r", rv)),
                  lambda c: c.at_most("s", t, m, slack=slack, rival=Rival("r", rv, "lhs"))),
                 (lambda c: c.at_least("s", m, t, slack=slack, rival=Rival("r", rv, "lhs")),
                  lambda c: c.at_most("s", t, m, slack=slack, rival=("r", rv)))]
        for lower, upper in pairs:
            assert outcome(lower) == outcome(upper)


def test_at_least_rival_that_passes_raises():
    c = Claims("t", verbose=False)
    # the rival threshold 0.4 is also reached by the measured 0.5: the check cannot tell
    with pytest.raises(ClaimError, match="cannot tell"):
        c.at_least("difference >= 0.2", 0.5, 0.2, rival=("the threshold is 0.4", 0.4))
    # a rival threshold above the measured value by more than the slack is ruled out
    c.at_least("difference >= 0.2", 0.5, 0.2, slack=0.1, rival=("the threshold is 0.9", 0.9))
    assert c.last_margin == pytest.approx(4.0)


# -- one seed per chapter, explain mode, stated power, exact labels ------------------

def test_chapter_seed_names_independent_draws_and_can_be_replaced(monkeypatch):
    from ensembles_verified import ChapterSeed

    monkeypatch.delenv("ENSEMBLES_VERIFIED_SEED", raising=False)
    seed = ChapterSeed(20260101)
    assert seed("training set") == ChapterSeed(20260101)("training set")
    assert seed("training set") != seed("test set") != ChapterSeed(20260102)("test set")
    assert seed.rng("noise").random() == ChapterSeed(20260101).rng("noise").random()
    monkeypatch.setenv("ENSEMBLES_VERIFIED_SEED", "7")
    assert ChapterSeed(20260101).value == 7 and ChapterSeed(20260101)("x") == ChapterSeed(7)("x")
    for bad, error in [(-1, ValueError), (1.5, TypeError), (True, TypeError)]:
        with pytest.raises(error, match="seed"):
            ChapterSeed(bad)
    with pytest.raises(ValueError, match="name"):
        seed("")
    monkeypatch.setenv("ENSEMBLES_VERIFIED_SEED", "seven")
    with pytest.raises(ValueError, match="ENSEMBLES_VERIFIED_SEED"):
        ChapterSeed(1)


def test_explain_mode_reports_and_goes_on(monkeypatch, capsys):
    monkeypatch.setenv("ENSEMBLES_VERIFIED_CLAIMS", "explain")
    claims = Claims("demo")
    claims.close("one is two", 1.0, 2.0, atol=0.1, rival=("one is five", 5.0))
    claims.close("one is one", 1.0, 1.0, atol=0.1, rival=("one is 1.05", 1.05))
    out = capsys.readouterr().out
    assert "Not confirmed on this run: one is two" in out and "expected 2 (atol=0.1), measured 1" in out
    assert "would also explain" in out and len(claims.failures) == 2
    monkeypatch.setenv("ENSEMBLES_VERIFIED_CLAIMS", "strict")
    with pytest.raises(ClaimError):
        Claims("demo").close("one is two", 1.0, 2.0, atol=0.1, rival=("one is five", 5.0))
    monkeypatch.setenv("ENSEMBLES_VERIFIED_CLAIMS", "lenient")
    with pytest.raises(ValueError, match="ENSEMBLES_VERIFIED_CLAIMS"):
        Claims("demo")


def test_stated_power_refuses_less_than_the_promise():
    claims = Claims("demo", verbose=False)
    assert claims.stated_power(1.0, 0.1) > 0.99
    with pytest.raises(ClaimError, match="below the promised 0.99"):
        claims.stated_power(0.5, 0.1)


def test_a_label_marks_an_exact_check_only():
    claims = Claims("demo", verbose=False)
    claims.close("half square", 2.0, 2.0, atol=1e-12, rival=("whole square", 4.0), label="eq-loss-squared")
    for kwargs in ({"atol": 1e-3, "rival": ("whole square", 4.0)}, {"atol": 0.0}):
        with pytest.raises(ValueError, match="exact check"):
            claims.close("half square", 2.0, 2.0, label="eq-loss-squared", **kwargs)
    with pytest.raises(ValueError, match="exact check"):
        claims.holds("true", True, label="eq-loss-squared")
