"""The answer checks accept the answer, reject wrong ones helpfully, and never reveal the answer.

``ensembles_verified.answers`` registers a question for every derivation or
experiment whose answer is a number or a formula. For every question, the
book's version and several variants:

* the answer of the instructors' key (``tools/answer_bank.py``, whose rounded
  values the runtime stores only as digests) passes ``check_answer``, and so does
  the answer rounded to the precision the question states;
* wrong answers (the usual mistakes of the question, and numbers off by a few
  per cent) fail with a message that says what was asked and, for a usual
  mistake, names it; no message contains the answer, in any of the ways a number
  is usually written;
* the student's sources (every chapter without its solutions, as the student
  edition and the student notebooks have them) do not contain the answer either
  (the built student edition is searched in ``tests/test_student_build.py``);
* formulas are parsed safely: anything but arithmetic in the question's variables
  is refused.
"""

from __future__ import annotations

import numpy as np
import pytest

from ensembles_verified import answers  # noqa: E402
from ensembles_verified.answers import QUESTIONS, check_answer, rounded, variant  # noqa: E402
from tools.answer_bank import ANSWERS, answer_key  # noqa: E402
from tools.chapters import chapter_notebooks  # noqa: E402
from tools.exercise_sources import answer_strings, chapter_exercises, occurs  # noqa: E402

CHAPTERS = [nb.with_suffix(".md") for nb in chapter_notebooks()]
SEEDS = [None, 0, 1, 17, 999]
NUMERIC = sorted(label for label, q in QUESTIONS.items() if not q.variables)


def failure(label: str, value, seed=None) -> str:
    with pytest.raises(AssertionError) as info:
        check_answer(label, value, seed=seed)
    return str(info.value)


@pytest.mark.parametrize("label", sorted(QUESTIONS))
@pytest.mark.parametrize("seed", SEEDS)
def test_the_answer_key_passes(label, seed, capsys):
    check_answer(label, answer_key(label, seed), seed=seed)
    assert capsys.readouterr().out.startswith(f"\u2714 {label}: right")


@pytest.mark.parametrize("label", NUMERIC)
@pytest.mark.parametrize("seed", [None, 0, 999])
def test_answers_rounded_to_the_stated_precision_pass(label, seed, capsys):
    """0.62 is right for 0.6197 at two decimals; a coarser answer is told to give more digits."""
    q = QUESTIONS[label]
    right = answer_key(label, seed)
    kind, k = q.precision
    check_answer(label, rounded(right, q.precision), seed=seed)
    assert "\u2714" in capsys.readouterr().out
    coarse = rounded(right, (kind, k - 2))
    if rounded(float(coarse), q.precision) != rounded(right, q.precision):
        message = failure(label, coarse, seed)
        assert f"give it to {q.precision_text()}" in message, message


@pytest.mark.parametrize("label", NUMERIC)
@pytest.mark.parametrize("seed", SEEDS)
def test_wrong_numbers_fail_without_revealing_the_answer(label, seed):
    right = answer_key(label, seed)
    q = QUESTIONS[label]
    params = variant(label, seed)
    wrong = [right * 1.05, right * 0.97, right + 1.0, -right]
    wrong += [float(fn(**params)) for fn in ANSWERS[label].mistakes.values()]
    for value in wrong:
        if rounded(value, q.precision) == rounded(right, q.precision):
            continue
        message = failure(label, value, seed)
        assert message.startswith(f"\u2718 {label}: your answer "), message
        assert "does not show the answer" in message
        assert "Hint: " in message or "Look at the idea: " in message, message
        shown = message.replace(f"{value:.6g}", "<your value>")  # the student's own number
        shown = shown.replace(rounded(value, q.precision), "<yours, rounded>")
        for text in answer_strings(right) | {rounded(right, q.precision)}:
            assert not occurs(text, shown), (text, message)


@pytest.mark.parametrize("label", sorted(QUESTIONS))
def test_usual_mistakes_get_their_hint(label):
    q = QUESTIONS[label]
    params = variant(label)
    assert set(q.hints) == set(ANSWERS[label].mistakes)
    for key, fn in ANSWERS[label].mistakes.items():
        if q.variables:
            continue
        value = float(fn(**params))
        if rounded(value, q.precision) == rounded(answer_key(label), q.precision):
            continue
        assert f"Hint: {q.hints[key].format(**params)}" in failure(label, value)


def test_formula_answers_are_compared_as_functions(capsys):
    for text in ["(1 - 1/N)**n", "(1-1/N)^n", "exp(n*log(1 - 1/N))", "((N - 1)/N)**n"]:
        check_answer("ex-oob-subsample", text)
    assert capsys.readouterr().out.count("\u2714") == 4
    message = failure("ex-oob-subsample", "exp(-n/N)")
    assert QUESTIONS["ex-oob-subsample"].hints["limit"] in message
    assert "1 - 1/N" not in message and "1/N)**n" not in message
    with pytest.raises(ValueError, match="uses 'os'|only the functions"):
        check_answer("ex-oob-subsample", "os.system('true')")
    with pytest.raises(ValueError, match="not a valid expression|may only use"):
        check_answer("ex-oob-subsample", "lambda: 1")
    with pytest.raises(ValueError, match="may only use|only the functions"):
        check_answer("ex-oob-subsample", "N.__class__")
    with pytest.raises(ValueError, match="uses '__import__'|only the functions"):
        check_answer("ex-oob-subsample", "__import__('os')")
    with pytest.raises(TypeError, match="must be a string"):
        check_answer("ex-oob-subsample", 0.37)


def test_numbers_may_be_given_as_expressions_and_bad_input_is_explained(capsys):
    check_answer("ex-crowds-three", "1/2 + sqrt(3)/6")
    assert "\u2714" in capsys.readouterr().out
    with pytest.raises(TypeError, match="single number"):
        check_answer("ex-crowds-three", [0.5, 0.6])
    with pytest.raises(KeyError, match="no answer check is registered"):
        check_answer("ex-nowhere", 1.0)
    with pytest.raises(TypeError, match="seed must be"):
        variant("ex-bv-mean", seed=-1)
    with pytest.raises(ValueError, match="seeds 0 to 999"):
        check_answer("ex-bv-mean", 0.1, seed=1000)


@pytest.mark.parametrize("label", sorted(l for l, q in QUESTIONS.items() if q.draw is not None))
def test_variants_differ_and_the_book_is_seed_none(label):
    assert variant(label) == QUESTIONS[label].book
    drawn = [variant(label, seed) for seed in range(6)]
    assert len({tuple(sorted(d.items())) for d in drawn}) >= 4, drawn
    assert variant(label, 3) == variant(label, 3)
    keys = {round(answer_key(label, seed), 12) for seed in range(6)}
    assert len(keys) >= 4


def test_every_question_is_an_exercise_that_calls_its_check():
    statements = {ex["label"]: ex["statement"] for md in CHAPTERS for ex in chapter_exercises(md)[0]}
    for label, q in QUESTIONS.items():
        assert label in statements, f"{label} is not an exercise of the book"
        assert f'check_answer("{label}"' in statements[label]
        if q.draw is not None:
            assert "seed=" in statements[label], f"{label}: the statement does not show the seed"


@pytest.mark.parametrize("md", CHAPTERS, ids=[md.stem for md in CHAPTERS])
def test_the_students_sources_do_not_contain_the_answers(md):
    """What the student edition and the student notebooks are made from: no answer in it."""
    from tools.student_notebooks import student_markdown, student_notebook

    text = student_markdown(md.read_text(encoding="utf-8"))
    text += "\n".join(cell.source for cell in student_notebook(md).cells)
    labels = {ex["label"] for ex in chapter_exercises(md)[0]}
    for label in sorted(labels & set(NUMERIC)):
        for seed in SEEDS:
            for form in answer_strings(answer_key(label, seed)):
                assert not occurs(form, text), f"{md.stem}: the answer to {label} ({form}) is shown"
    for label in sorted(labels & (set(QUESTIONS) - set(NUMERIC))):
        assert ANSWERS[label].formula.replace(" ", "") not in text.replace(" ", "")


def test_the_module_documents_how_to_check():
    assert "never prints the answer" in answers.__doc__
    assert np.isfinite(answer_key("ex-bv-mean"))
