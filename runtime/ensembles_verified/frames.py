"""Figures that move: frames a chapter draws, switched by a slider, with no kernel and no network.

A chapter computes one frame per value of a parameter (a tree's depth, AdaBoost's
round, the learning rate) and hands the drawing function to :func:`slider_figure`.
Every frame is drawn once, by matplotlib, when the cell runs, so every frame's data
come from the chapter's own run (and the chapter's claims can be made over all of
them). What the cell displays has three forms, and each reader gets the one that
fits:

* **on the web page and in a running notebook** (``text/html``): the frames as
  images, one shown at a time, under a slider (an ``<input type="range">``, so a
  keyboard's arrow keys, Home and End, and a finger move it), with its label, the
  current value read out to screen readers, and a text alternative per frame. A
  dozen lines of inline script switch the frames; nothing is fetched, so the page
  works offline and from a file. Without JavaScript the first frame stays shown.
* **in the PDF** (``image/png``, the LaTeX builder's choice): a small multiple of a
  few frames side by side, with a line saying that the web edition moves the
  parameter.
* **as text** (``text/plain``): what the figure shows and over which values.

The frames are PNGs drawn at twice their displayed size (sharp on a phone), shown
at most as wide as the column (no sideways scrolling at 412 px).
"""

from __future__ import annotations

import base64
import html
import io
import json
import re
from collections.abc import Callable, Sequence
from typing import Any

import matplotlib.pyplot as plt

NAME_RE = re.compile(r"^[a-z][a-z0-9-]{1,40}$")
DPI = 150  # pixels per inch of a frame: twice the 75 px per inch it is shown at
SHOWN_DPI = 75
TEXT_MARKER = "Interactive figure"  # the text/plain form starts so (the print edition finds it)
_SCRIPT = """(function () {
  var root = document.getElementById(%(id)s);
  if (!root || root.dataset.ready) { return; }
  root.dataset.ready = "1";
  var frames = root.querySelectorAll("img.ev-frame");
  var input = root.querySelector("input.ev-frames-input");
  var out = root.querySelector("output");
  var texts = JSON.parse(root.dataset.values);
  function show() {
    var k = Number(input.value);
    for (var i = 0; i < frames.length; i++) { frames[i].hidden = (i !== k); }
    out.textContent = texts[k];
    input.setAttribute("aria-valuetext", texts[k]);
  }
  input.addEventListener("input", show);
  show();
})();"""


def _png(fig) -> tuple[bytes, tuple[int, int]]:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI)
    width, height = (round(v * DPI) for v in fig.get_size_inches())
    return buffer.getvalue(), (width, height)


def _check_arguments(values: Sequence[Any], name: str, start: int, static: Sequence[int]) -> None:
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise ValueError(f"name must be 2-41 lower-case letters, digits or '-', starting with a "
                         f"letter (it becomes the figure's id on the page); got {name!r}")
    if len(values) < 2:
        raise ValueError(f"values must hold at least two parameter values (one frame each); got {len(values)}")
    for parameter, index in [("start", start), *(("static", k) for k in static)]:
        if not isinstance(index, int) or not 0 <= index < len(values):
            raise ValueError(f"{parameter} must hold frame indices in [0, {len(values) - 1}]; got {index!r}")


class SliderFigure:
    """Frames drawn by a chapter, one per parameter value; see :func:`slider_figure`."""

    def __init__(self, *, name: str, label: str, texts: list[str], frames: list[bytes],
                 alts: list[str], size: tuple[int, int], start: int, static: bytes,
                 static_size: tuple[int, int]):
        self.name, self.label, self.texts, self.frames = name, label, texts, frames
        self.alts, self.size, self.start = alts, size, start
        self.static, self.static_size = static, static_size

    def _html(self) -> str:
        uid = f"ev-frames-{self.name}"
        width, height = (v * SHOWN_DPI // DPI for v in self.size)
        images = "".join(
            f'<img class="ev-frame" src="data:image/png;base64,{base64.b64encode(png).decode()}" '
            f'alt="{html.escape(alt)}" width="{width}" height="{height}"'
            f' style="max-width:100%;height:auto;display:block"{"" if k == self.start else " hidden"}>'
            for k, (png, alt) in enumerate(zip(self.frames, self.alts)))
        values = html.escape(json.dumps(self.texts))
        return (f'<div class="ev-frames" id="{uid}" role="group" aria-label="{html.escape(self.label)}" '
                f'data-values="{values}" style="max-width:{width}px">'
                f'<div class="ev-frames-stage">{images}</div>'
                f'<div class="ev-frames-control" style="display:flex;flex-wrap:wrap;align-items:center;'
                f'gap:0.25em 0.75em">'
                f'<label for="{uid}-input">{html.escape(self.label)}</label>'
                f'<input class="ev-frames-input" id="{uid}-input" type="range" min="0" '
                f'max="{len(self.frames) - 1}" step="1" value="{self.start}" '
                f'aria-valuetext="{html.escape(self.texts[self.start])}" '
                f'style="flex:1 1 10em;min-width:0;min-height:44px">'
                f'<output for="{uid}-input" aria-live="polite">{html.escape(self.texts[self.start])}'
                f'</output></div></div>'
                f'<script>{_SCRIPT % {"id": json.dumps(uid)}}</script>')

    def _repr_mimebundle_(self, include=None, exclude=None):
        width, height = self.static_size
        data = {"text/html": self._html(),
                "image/png": base64.b64encode(self.static).decode(),
                "text/plain": self.__repr__()}
        return data, {"image/png": {"width": width // 2, "height": height // 2}}

    def __repr__(self) -> str:
        return (f"{TEXT_MARKER} '{self.name}': {self.label} over {len(self.frames)} frames "
                f"({self.texts[0]} to {self.texts[-1]}).")


def slider_figure(draw: Callable[[Any, Any], None], values: Sequence[Any], *, name: str, label: str,
                  text: Callable[[Any], str] = str, alt: Callable[[Any], str] | None = None,
                  figsize: tuple[float, float] = (6.4, 3.6), ncols: int = 1, start: int = 0,
                  static: Sequence[int] | None = None) -> SliderFigure:
    """Draw one frame per value and return a figure whose slider switches between them.

    Parameters
    ----------
    draw : callable
        ``draw(ax, value)`` draws the frame of ``value`` on ``ax`` (an array of
        ``ncols`` axes when ``ncols > 1``). It is called once per value on fresh axes,
        and again on the axes of the printed small multiple; it should fix the axes'
        limits, so that frames differ only where the model does.
    values : sequence
        The parameter's values, in slider order (at least two).
    name : str
        The figure's id on the page (lower case, digits and ``-``), unique in the chapter.
    label : str
        The slider's label, e.g. ``"Tree depth d"``.
    text : callable, default str
        The value as the slider reads it out, e.g. ``lambda d: f"d = {d}"``.
    alt : callable, optional
        Each frame's text alternative; by default the label and the value's text.
    figsize : (float, float)
        One frame's size in inches (shown at 75 px per inch, at most the column's width).
    ncols : int
        Panels side by side in one frame.
    start : int
        The frame shown first (and by the HTML without JavaScript).
    static : sequence of int, optional
        The frames of the printed small multiple; by default the first, middle and last.

    Returns
    -------
    SliderFigure
        Displayed by a notebook cell: the slider on a web page, the small multiple in the PDF.
    """
    static = list(static) if static is not None else sorted({0, len(values) // 2, len(values) - 1})
    _check_arguments(values, name, start, static)
    alt = alt or (lambda v: f"{label}: {text(v)}")
    frames, size = [], (0, 0)
    fig, axes = plt.subplots(1, ncols, figsize=figsize, layout="constrained")
    for k, value in enumerate(values):
        for ax in (axes.ravel() if ncols > 1 else [axes]):
            ax.clear()
        draw(axes, value)
        png, size = _png(fig)
        frames.append(png)
        if k == 0:  # the layout of the first frame serves them all (the axes' limits are fixed):
            with plt.rc_context({"figure.autolayout": False, "figure.constrained_layout.use": False}):
                fig.set_layout_engine(None)  # the frames do not jump, and are not laid out again
    plt.close(fig)
    if len(set(frames)) == 1:
        raise ValueError(f"the {len(frames)} frames of '{name}' are all the same picture: "
                         "draw(ax, value) must depend on value")
    static_png, static_size = _small_multiple(draw, [values[k] for k in static], label, text,
                                              figsize, ncols)
    return SliderFigure(name=name, label=label, texts=[text(v) for v in values], frames=frames,
                        alts=[alt(v) for v in values], size=size, start=start, static=static_png,
                        static_size=static_size)


def _small_multiple(draw, shown, label, text, figsize, ncols) -> tuple[bytes, tuple[int, int]]:
    """The printed form: the frames ``shown`` side by side (one row each when a frame has
    several panels), titled by their value, and a line naming the web edition's slider."""
    rows, cols = (1, len(shown)) if ncols == 1 else (len(shown), ncols)
    height = max(2.4, 0.8 * figsize[1]) if ncols == 1 else 0.8 * figsize[1] * rows
    fig, axes = plt.subplots(rows, cols, figsize=(figsize[0], height + 0.3),
                             layout="constrained", squeeze=False)
    for k, value in enumerate(shown):
        panel = axes[0, k] if ncols == 1 else axes[k]
        draw(panel, value)
        (panel if ncols == 1 else panel[0]).set_title(text(value), fontsize="medium")
    fig.supxlabel(f"{label}: {len(shown)} of its frames; the web edition moves it with a slider.",
                  fontsize="small", style="italic")
    png, size = _png(fig)
    plt.close(fig)
    return png, size
