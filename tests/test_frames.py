"""The figures that move (``ensembles_verified.frames``): one frame per value, each form sound.

The browser test operates the sliders of the built book; these tests check what a
cell displays, without a browser: the HTML holds one image per value with its own
text alternative and one shown, a labelled range input and the values it reads out;
the PDF's form is a PNG; bad arguments are refused by name.
"""

from __future__ import annotations

import base64
import html.parser
import json

import matplotlib
import pytest

from ensembles_verified.frames import TEXT_MARKER, slider_figure

matplotlib.use("Agg")


def draw(ax, k):
    ax.plot([0, 1], [0, k])
    ax.set_ylim(0, 4)


class _Parts(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def parts(markup: str) -> list[tuple[str, dict]]:
    parser = _Parts()
    parser.feed(markup)
    return parser.tags


@pytest.fixture(scope="module")
def bundle():
    figure = slider_figure(draw, [1, 2, 3, 4], name="slopes", label="Slope k",
                           text=lambda k: f"k = {k}", alt=lambda k: f"A line of slope {k}",
                           figsize=(3, 2), start=1)
    return figure._repr_mimebundle_()


def test_one_image_per_value_one_shown_each_with_its_text(bundle):
    data, _ = bundle
    tags = parts(data["text/html"])
    frames = [a for tag, a in tags if tag == "img"]
    assert [a["alt"] for a in frames] == [f"A line of slope {k}" for k in (1, 2, 3, 4)]
    assert [("hidden" in a) for a in frames] == [True, False, True, True]
    assert len({a["src"] for a in frames}) == 4, "two frames are the same picture"
    for a in frames:
        assert a["src"].startswith("data:image/png;base64,")  # nothing fetched
        assert "max-width:100%" in a["style"]


def test_the_slider_is_labelled_and_reads_out_the_values(bundle):
    data, _ = bundle
    tags = parts(data["text/html"])
    first = {tag: a for tag, a in reversed(tags)}
    slider, label, root = first["input"], first["label"], first["div"]
    assert slider["type"] == "range" and (slider["min"], slider["max"], slider["value"]) == ("0", "3", "1")
    assert label["for"] == slider["id"] == "ev-frames-slopes-input"
    assert slider["aria-valuetext"] == "k = 2"
    assert json.loads(root["data-values"]) == ["k = 1", "k = 2", "k = 3", "k = 4"]
    assert "<script>" in data["text/html"] and "https://" not in data["text/html"]


def test_print_and_text_forms(bundle):
    data, metadata = bundle
    png = base64.b64decode(data["image/png"])
    assert png.startswith(b"\x89PNG")
    assert metadata["image/png"]["width"] > 0
    assert data["text/plain"].startswith(TEXT_MARKER) and "k = 1 to k = 4" in data["text/plain"]


@pytest.mark.parametrize("kwargs, message", [
    ({"values": [1]}, "values must hold at least two"),
    ({"name": "Has Space"}, "name must be"),
    ({"start": 5}, "start must hold frame indices"),
    ({"static": [0, 9]}, "static must hold frame indices"),
])
def test_bad_arguments_are_refused_by_name(kwargs, message):
    arguments = {"values": [1, 2], "name": "ok", "label": "k", **kwargs}
    with pytest.raises(ValueError, match=message):
        slider_figure(draw, arguments.pop("values"), **arguments)


def test_frames_that_do_not_depend_on_the_value_are_refused():
    with pytest.raises(ValueError, match="all the same picture"):
        slider_figure(lambda ax, k: ax.plot([0, 1], [0, 1]), [1, 2, 3], name="same", label="k")
