"""Glued numbers and text: ``glue_numbers`` and ``glue_text`` write what MyST-NB's ``glue`` writes.

``ensembles_verified.notebook`` emits MyST-NB's glue output itself (importing MyST-NB's
glue module costs a chapter's kernel over a second); the text of the book reads those
outputs, so they must stay exactly MyST-NB's, for every kind of number glued.
"""

from __future__ import annotations

import numpy as np
import pytest

from ensembles_verified import glue_numbers, glue_text


def outputs(call) -> list[tuple[dict, dict]]:
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    InteractiveShell.instance()  # what a kernel has: the shell whose formatters glue uses
    with capture_output() as captured:
        call()
    return [(out.data, out.metadata) for out in captured.outputs]


@pytest.mark.parametrize("value", [3, 0.25, np.float64(1 / 3), np.int64(7), np.array(2.5),
                                   np.bool_(True), -1e-300])
def test_glue_numbers_writes_what_myst_nb_glue_writes(value):
    from myst_nb import glue

    number = value.item() if isinstance(value, np.ndarray | np.generic) else value
    number = int(number) if isinstance(number, bool) else number
    ours = outputs(lambda: glue_numbers(n=value))
    theirs = outputs(lambda: glue("n", number, display=False))
    assert ours == theirs and len(ours) == 1
    data, metadata = ours[0]
    assert metadata["scrapbook"]["name"] == "n" and all(k.startswith("application/papermill.record/")
                                                         for k in data)


def test_a_different_number_writes_a_different_output():
    """The comparison above can fail: two numbers give two outputs."""
    assert outputs(lambda: glue_numbers(n=1)) != outputs(lambda: glue_numbers(n=2))


@pytest.mark.parametrize("value", ["1.2.3", "left", "", "`Ordered`"])
@pytest.mark.parametrize("markdown", [False, True])
def test_glue_text_writes_what_myst_nb_glue_writes(value, markdown):
    from IPython.display import Markdown
    from myst_nb import glue

    text = Markdown(value) if markdown else value
    ours = outputs(lambda: glue_text(t=text))
    theirs = outputs(lambda: glue("t", text, display=False))
    assert ours == theirs and len(ours) == 1
    assert ("application/papermill.record/text/markdown" in ours[0][0]) == markdown


def test_glue_text_refuses_what_is_not_text():
    with pytest.raises(TypeError, match="version must be a str or an IPython.display.Markdown"):
        glue_text(version=2.1)
    with pytest.raises(TypeError, match="glue_numbers"):
        glue_text(n=np.float64(1.0))


def test_glue_text_glues_a_numpy_string_as_its_text_and_nothing_when_a_value_is_refused():
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    assert outputs(lambda: glue_text(side=np.str_("left"))) == outputs(lambda: glue_text(side="left"))
    InteractiveShell.instance()
    with capture_output() as captured, pytest.raises(TypeError, match="second must be"):
        glue_text(first="fine", second=3)
    assert captured.outputs == []
