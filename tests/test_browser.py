"""The built book in a real browser, with no network.

The HTML of the strict build (the session fixture ``built_book``) is served on
127.0.0.1 and every page is opened in headless Chromium (Debian's ``chromium``,
driven by Playwright's Python package with the system browser; Playwright's own
browser downloads are never used). For each page the test asserts that

* every formula is typeset: each ``.math`` element holds a MathJax container,
  no raw ``$$`` or ``\\begin{`` is left in the text, and MathJax reports no error
  (no ``merror`` node, no undefined macro shown in red);
* every ``<img>`` has loaded, with a non-zero natural size;
* every internal link resolves: the file exists and so does the anchor;
* no JavaScript error is raised or logged on the console;
* every request goes to 127.0.0.1 (MathJax and its fonts included) and succeeds;
  any other request is aborted and reported.

* no element is wider than its column, at 412 px (a phone: every page is loaded at that
  width) and at 1,400 px (the same page widened, as a window is), over the whole height of
  the page: the page does not scroll sideways, no element of the
  article sticks out of it (a formula included: one wider than its line must scroll
  inside it), and no box inside it scrolls sideways (formulas and tables excepted);
* every figure that moves (a slider of ``ensembles_verified.frames``) works from the
  keyboard: focused, moved to its other end with Home or End, it shows exactly one
  frame, a different picture, and reads out the new value; every chapter has one;
* axe-core (the copy bundled in the pinned ``axe-playwright-python`` package, so
  nothing is downloaded) finds no serious or critical accessibility violation,
  and every image has a text alternative (colour contrast on one text of each
  style, see ``RUN_AXE``).

One screenshot per chapter (the screen around its first displayed formula) is
saved in ``tests/artifacts/``, and three chapters are also shot at both widths over
their whole height (``*__1400.png``, ``*__412.png``). A first test runs
the same checks on a deliberately broken page, to show that each check can fail.

``/usr/bin/chromium`` is installed by the setup stage of the test run
(``python -m tools.system_packages``); if it is missing the test fails with that
command; it is never skipped.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import functools
import html.parser
import http.server
import os
import re
import tempfile
import threading
from pathlib import Path
from urllib.parse import unquote, urldefrag, urlsplit

import pytest

from _ext.offline_mathjax import mathjax_es5_dir  # noqa: E402
from tools.chapters import ROOT, chapter_notebooks  # noqa: E402

pytestmark = pytest.mark.book  # read by the stage 'browser' of dodo.py, after its product is made

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
HOST = "127.0.0.1"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
# Browsers ask every site for /favicon.ico by themselves (the book declares its icon,
# _static/favicon.svg, but the broken test page does not), so this request may fail.
IMPLICIT_REQUESTS = {"/favicon.ico"}
PAGE_TIMEOUT_MS = 30_000
WIDE, NARROW = 1400, 412
SHOT_CHAPTERS = ["book/05_bagging_oob.html", "book/08_adaboost.html",
                 "book/09_gradient_boosting.html"]
SERIOUS = ("serious", "critical")


# --------------------------------------------------------------------------- set-up

def ensure_chromium() -> Path:
    """The system Chromium, installed by the setup stage (``python -m tools.system_packages``)."""
    if not CHROMIUM.exists():
        pytest.fail(f"headless Chromium is required at {CHROMIUM}: python -m tools.system_packages "
                    "installs it (Debian package 'chromium')")
    return CHROMIUM


def playwright_api():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("the browser test needs Playwright's Python package: "
                    "python -m pip install -r requirements-dev.txt (no 'playwright install' "
                    "is needed: the system Chromium is used)")
    return sync_playwright


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".woff": "font/woff", ".woff2": "font/woff2", ".js": "text/javascript",
                      ".svg": "image/svg+xml"}

    def log_message(self, *args):  # keep pytest's output clean
        pass


class LocalServer:
    """``root`` served over HTTP on 127.0.0.1 (a free port) in a daemon thread."""

    def __init__(self, root: Path):
        self.root = root
        handler = functools.partial(_QuietHandler, directory=str(root))
        self.httpd = http.server.ThreadingHTTPServer((HOST, 0), handler)
        self.base = f"http://{HOST}:{self.httpd.server_address[1]}/"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> "LocalServer":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@contextlib.contextmanager
def chromium_context():
    """A headless Chromium context with a fresh profile directory.

    Playwright's synchronous API belongs to the thread that starts it: each thread
    that checks pages opens its own context with this function.
    """
    executable = ensure_chromium()
    sync_playwright = playwright_api()
    with tempfile.TemporaryDirectory(prefix="chromium-profile-") as profile, \
            sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            profile, executable_path=str(executable), headless=True, args=FLAGS,
            viewport={"width": WIDE, "height": 900}, service_workers="block")
        context.set_default_timeout(PAGE_TIMEOUT_MS)
        yield context
        context.close()


@pytest.fixture(scope="module")
def browser():
    """A Chromium context for the tests of this module (the main thread's)."""
    ensure_chromium()
    with chromium_context() as context:
        yield context


# --------------------------------------------------------------------------- checks

class _Anchors(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs):
        for key, value in attrs:
            if key == "id" or (tag == "a" and key == "name"):
                self.ids.add(value or "")


@functools.lru_cache(maxsize=None)
def anchors_of(path: Path) -> frozenset[str]:
    parser = _Anchors()
    parser.feed(path.read_text(encoding="utf-8", errors="replace"))
    return frozenset(parser.ids)


def local_file(root: Path, url: str) -> Path:
    """The file that a URL on the local server maps to."""
    path = unquote(urlsplit(url).path).lstrip("/")
    target = root / path
    return target / "index.html" if (not path or path.endswith("/") or target.is_dir()) else target


# Runs in the page once it has loaded: waits for MathJax's first typesetting and
# for every image, then reports what the checks need.
INSPECT_PAGE = r"""
async () => {
  const mj = window.MathJax;
  if (mj && mj.startup && mj.startup.promise) { await mj.startup.promise; }
  if (document.fonts && document.fonts.ready) { await document.fonts.ready; }
  const imgs = Array.from(document.images);
  await Promise.all(imgs.map(img => {
    img.loading = "eager";
    return img.complete ? null : new Promise(done => {
      img.addEventListener("load", done); img.addEventListener("error", done);
      setTimeout(done, 10000);
    });
  }));
  const badImages = imgs.filter(img => !(img.complete && img.naturalWidth > 0 && img.naturalHeight > 0))
                        .map(img => img.getAttribute("src"));
  const mathNodes = Array.from(document.querySelectorAll("span.math, div.math"));
  const untypeset = mathNodes.filter(el => !el.querySelector("mjx-container"))
                             .map(el => el.textContent.trim().slice(0, 80));
  const errors = Array.from(document.querySelectorAll("mjx-merror, [data-mjx-error]"))
                      .map(el => el.getAttribute("data-mjx-error") || el.textContent.slice(0, 80));
  if (mj && mj.startup && mj.startup.document && mj.startup.document.math) {
    for (const item of mj.startup.document.math) {
      if (!item.root || !item.root.walkTree) continue;
      item.root.walkTree(node => {
        if (node.isKind("merror")) errors.push("merror in " + item.math.slice(0, 80));
        else if (node.isKind("mtext") && node.attributes.get("mathcolor") === "red"
                 && String(node.childNodes.map(c => c.text || "").join("")).startsWith("\\"))
          errors.push("undefined macro in " + item.math.slice(0, 80));
      });
    }
  }
  const body = document.body.cloneNode(true);
  body.querySelectorAll("script, style, pre, code, mjx-container, .highlight, textarea")
      .forEach(el => el.remove());
  const text = body.textContent;
  const raw = ["$$", "\\begin{"].filter(s => text.includes(s))
      .map(s => s + " near: " + text.slice(Math.max(0, text.indexOf(s) - 40), text.indexOf(s) + 40)
                                .replace(/\s+/g, " "));
  const links = Array.from(document.querySelectorAll("a[href]")).map(a => a.href);
  return {url: location.href, title: document.title, mathNodes: mathNodes.length,
          containers: document.querySelectorAll("mjx-container").length,
          mathjaxLoaded: !!(mj && mj.startup), untypeset, errors, raw, badImages, links};
}
"""


# Elements that stick out of the article's column, and boxes inside it that scroll
# sideways; returns one description per offender (at most 20).
MEASURE_WIDTH = r"""
() => {
  const out = [];
  const doc = document.documentElement;
  if (doc.scrollWidth > window.innerWidth + 1)
    out.push(`the page scrolls sideways: ${doc.scrollWidth}px in a ${window.innerWidth}px window`);
  const col = document.querySelector("article.bd-article") || document.querySelector("main") || document.body;
  const c = col.getBoundingClientRect();
  const name = el => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
      (el.className && typeof el.className === "string" ? "." + el.className.trim().split(/\s+/).slice(0, 2).join(".") : "") +
      " '" + (el.textContent || "").trim().replace(/\s+/g, " ").slice(0, 50) + "'";
  const scrolls = el => ["auto", "scroll", "hidden"].includes(getComputedStyle(el).overflowX);
  // Inside a box that scrolls, an element may be wider than the column; inside one that
  // hides its overflow it may not (the overflow is cut off, not reachable).
  const inScroller = el => { for (let a = el.parentElement; a && a !== col; a = a.parentElement)
                               if (["auto", "scroll"].includes(getComputedStyle(a).overflowX)) return true;
                             return false; };
  // A formula or a table may scroll sideways inside the column; nothing may stick out of it.
  const mayScroll = el => el.matches("mjx-container, .pst-scrollable-table-container, div.math");
  for (const el of col.querySelectorAll("*")) {
    if (out.length >= 20) break;
    if (el.parentElement && el.parentElement.closest("mjx-container, svg")) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    if (scrolls(el) && el.scrollWidth > el.clientWidth + 2 && getComputedStyle(el).overflowX !== "hidden") {
      if (!mayScroll(el)) out.push(`scrolls sideways (${el.scrollWidth}px in ${el.clientWidth}px): ${name(el)}`);
    }
    else if (!inScroller(el) && (r.right > c.right + 2 || r.left < c.left - 2))
      out.push(`wider than its column (${Math.round(r.left)}..${Math.round(r.right)} outside ${Math.round(c.left)}..${Math.round(c.right)}): ${name(el)}`);
  }
  return out;
}
"""


def axe_source() -> str:
    """axe-core's script, as bundled in the pinned axe-playwright-python package."""
    try:
        import axe_playwright_python
    except ImportError:
        pytest.fail("the browser test needs axe-core: python -m pip install -r requirements-dev.txt "
                    "(package axe-playwright-python)")
    return (Path(axe_playwright_python.__file__).parent / "axe.min.js").read_text(encoding="utf-8")


# axe-core's rules, run over the whole page, except colour contrast, which is the slow one
# (it finds each text's background from the elements under it): it runs on one element
# per text style, a style being the text's colour, size, weight and shadow and, for it
# and every element around it, the background, opacity, filter, blending and position.
# Two texts of one style have the same contrast, on one page or on two: a style is
# checked on the first page of a tab that shows it (the tab passes the styles it has
# checked, and gets the new ones back). A page of the book has tens to a few hundred
# styles and up to tens of thousands of texts; the whole book has a few hundred styles.
# Only the rules that can report a serious or critical violation run: an axe-core rule
# reports its own impact (axe-core 4: ``finalizeRuleResult`` sets it from the rule), so
# the moderate and minor ones (landmarks, heading order, region, ...) could never fail
# this test, and "region" alone costs a fifth of a second on a chapter. The rules run
# are otherwise those of a default run: enabled, and not experimental. A rule without
# an impact of its own runs too.
RUN_AXE = """async ({checked, impacts}) => {
    const around = new Map();  // element -> the style of it and everything around it
    const surroundings = e => {
        if (!e) return "";
        if (!around.has(e)) {
            const s = getComputedStyle(e);
            around.set(e, [s.backgroundColor, s.backgroundImage, s.opacity, s.filter,
                           s.mixBlendMode, s.position, surroundings(e.parentElement)].join("|"));
        }
        return around.get(e);
    };
    const styles = new Set(checked), fresh = [];
    for (const el of document.body.querySelectorAll("*")) {
        if (![...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim())) continue;
        const own = getComputedStyle(el);
        const key = [own.color, own.fontSize, own.fontWeight, own.textShadow,
                     surroundings(el)].join("|");
        if (!styles.has(key)) {
            styles.add(key);
            fresh.push(key);
            el.setAttribute("data-contrast-sample", "");
        }
    }
    axe.configure({rules: [{id: "color-contrast", selector: "[data-contrast-sample]"}]});
    const rules = axe._audit.rules.filter(rule => rule.enabled && !rule.tags.includes("experimental")
        && (!rule.impact || impacts.includes(rule.impact))).map(rule => rule.id);
    const r = await axe.run(document, {runOnly: {type: "rule", values: rules},
                                       resultTypes: ["violations"], preload: false});
    return {styles: fresh, violations: r.violations.map(v => ({id: v.id, impact: v.impact,
        help: v.help, nodes: v.nodes.slice(0, 3).map(n => n.target.join(" "))}))};
}"""


# axe-core's cost grows with the elements of a page, not with the rules that find something
# in them, and two kinds of element make most of a chapter's: MathJax draws every formula as
# a tree of its own (600 formulas, 15,000 elements), and the highlighted code is a span per
# token (15,000 more). Every formula's tree has the same shape (a container with its role,
# label and focus, the glyphs hidden from screen readers, the MathML they read instead), and
# a token's span differs from another of its class only by its text, as every text of one
# style has one contrast. So axe sees one formula of each kind (inline, display) per page and
# every formula whose surroundings give it a role of its own (in a link, a button, a heading,
# a caption, a table header), and the first span of each token class in each kind of code
# block; the other formulas leave the page, the other spans become their text, once the
# checks that need them (typesetting, widths at both sizes, screenshots) are done.
THIN_PAGE = """() => {
    const kinds = new Set();
    for (const c of document.querySelectorAll("mjx-container")) {
        const kind = c.getAttribute("display") === "true" ? "display" : "inline";
        if (!kinds.has(kind) || c.closest("a, button, summary, label, h1, h2, h3, h4, h5, h6, "
                                          + "caption, figcaption, th")) {
            kinds.add(kind);
        } else {
            c.remove();
        }
    }
    const tokens = new Set();
    for (const span of document.querySelectorAll("pre > span")) {
        const key = span.className + "|" + (span.closest("div[class*=highlight]") || {}).className;
        if (tokens.has(key) && !span.children.length) {
            span.replaceWith(span.textContent);
        } else {
            tokens.add(key);
        }
    }
}"""


def accessibility_problems(page, axe: str, checked: set[str]) -> list[str]:
    """axe-core's serious and critical violations on the open page (see ``RUN_AXE``), with
    one formula and token of each kind left (``THIN_PAGE``: call it last on a page);
    ``checked``, the text styles whose contrast is known, gains the page's new ones."""
    page.evaluate(THIN_PAGE)
    page.add_script_tag(content=axe)
    result = page.evaluate(RUN_AXE, {"checked": sorted(checked), "impacts": list(SERIOUS)})
    checked.update(result["styles"])
    return [f"accessibility ({v['impact']}): {v['id']}: {v['help']} at {v['nodes']}"
            for v in result["violations"] if v["impact"] in SERIOUS]


def width_problems(page) -> list[str]:
    return [f"at {page.viewport_size['width']}px: {p}" for p in page.evaluate(MEASURE_WIDTH)]


def resized_width_problems(tab: "Tab", width: int) -> list[str]:
    """The open page at another width: resized, given two frames to lay out, measured."""
    tab.page.set_viewport_size({"width": width, "height": 900})
    tab.page.evaluate("() => new Promise(done => requestAnimationFrame("
                      "() => requestAnimationFrame(done)))")
    tab.page.wait_for_timeout(100)  # the theme's resize handlers (sidebars) run
    return width_problems(tab.page)


class Tab:
    """One browser tab that records, per visited page, what the checks need.

    Pages are visited one after the other in the same tab (a new tab costs a
    renderer process start). Every request is recorded; one to a host other than
    127.0.0.1 is aborted, so nothing leaves the machine.
    """

    def __init__(self, context):
        self.page = context.new_page()
        self.problems: list[str] = []
        self.requests: list[str] = []
        self.in_flight: set = set()
        self.contrast_checked: set[str] = set()  # text styles whose contrast axe has checked
        self.page.route("**/*", self._route)
        self.page.on("request", self._request)
        self.page.on("requestfinished", lambda request: self.in_flight.discard(request))
        self.page.on("requestfailed", self._failed)
        self.page.on("response", self._response)
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda exc: self.problems.append(f"JavaScript error: {exc}"))

    @staticmethod
    def _route(route):
        url = route.request.url
        if urlsplit(url).hostname == HOST or not url.startswith(("http:", "https:")):
            route.continue_()
        else:
            route.abort()

    def _request(self, request):
        self.requests.append(request.url)
        self.in_flight.add(request)

    def _failed(self, request):
        self.in_flight.discard(request)
        self.problems.append(f"request failed: {request.url} ({request.failure})")

    def _response(self, response):
        if response.status >= 400 and urlsplit(response.url).path not in IMPLICIT_REQUESTS:
            self.problems.append(f"HTTP {response.status} for {response.url}")

    def _console(self, msg):
        if msg.type != "error":
            return
        source = (msg.location or {}).get("url", "")
        if "Failed to load resource" in msg.text and urlsplit(source).path in IMPLICIT_REQUESTS:
            return
        self.problems.append(f"console error: {msg.text} ({source})")

    def settle(self, quiet_ms: int = 250) -> None:
        """Wait until no request has been in flight for ``quiet_ms``."""
        quiet = 0
        for _ in range(PAGE_TIMEOUT_MS // 50):
            quiet = quiet + 50 if not self.in_flight else 0
            if quiet >= quiet_ms:
                return
            self.page.wait_for_timeout(50)
        self.problems.append(f"requests still pending: {[r.url for r in self.in_flight]}")

    def close(self) -> None:
        self.page.close()


# The state of a figure that moves: which frames are shown, the picture shown, the value read out.
SLIDER_STATE = r"""
root => {
  const frames = Array.from(root.querySelectorAll("img.ev-frame"));
  const shown = frames.filter(img => !img.hidden && img.getBoundingClientRect().height > 0);
  return {shown: shown.map(img => frames.indexOf(img)), count: frames.length,
          src: shown.length ? shown[0].getAttribute("src") : "",
          said: (root.querySelector("output") || {}).textContent || "",
          valuetext: (root.querySelector("input") || {getAttribute: () => ""}).getAttribute("aria-valuetext")};
}
"""


def slider_problems(page) -> tuple[list[str], int]:
    """Move every slider of the page to its other end from the keyboard; the problems and
    how many sliders there are."""
    problems: list[str] = []
    roots = page.locator(".ev-frames")
    for k in range(roots.count()):
        root = roots.nth(k)
        name = root.get_attribute("id") or f"slider {k + 1}"
        before = root.evaluate(SLIDER_STATE)
        root.locator("input[type=range]").focus()
        at_end = before["shown"] == [before["count"] - 1]
        page.keyboard.press("Home" if at_end else "End")
        after = root.evaluate(SLIDER_STATE)
        if len(before["shown"]) != 1 or len(after["shown"]) != 1:
            problems.append(f"figure {name}: shows {len(before['shown'])} frames, then "
                            f"{len(after['shown'])} (one at a time)")
        elif after["src"] == before["src"] or after["said"] == before["said"]:
            problems.append(f"figure {name}: moving its slider from the keyboard did not change "
                            f"the figure (frame {before['shown']} -> {after['shown']})")
        elif after["valuetext"] != after["said"]:
            problems.append(f"figure {name}: the slider reads out {after['valuetext']!r}, "
                            f"the figure shows {after['said']!r}")
        page.keyboard.press("End" if at_end else "Home")
    return problems, roots.count()


def foreign_requests(urls: list[str]) -> list[str]:
    """The requests among ``urls`` that went to a host other than the local server."""
    return [f"request to another host: {url}" for url in urls
            if urlsplit(url).scheme in ("http", "https", "ws", "wss") and urlsplit(url).hostname != HOST]


def chapter_screenshot(page, path: Path) -> None:
    """One screen centred on the page's first displayed formula (a full page costs seconds)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    page.evaluate("() => document.querySelector('div.math')?.scrollIntoView({block: 'center'})")
    page.screenshot(path=str(path))


def check_page(tab: Tab, server: LocalServer, relpath: str,
               axe: str | None = None) -> tuple[list[str], dict]:
    """Open one page; return the problems found (empty when the page is sound)."""
    tab.problems, tab.requests = [], []
    tab.page.goto(server.base + relpath, wait_until="load")
    tab.settle()
    info = tab.page.evaluate(INSPECT_PAGE)
    tab.settle()  # requests started by typesetting or by the checks (fonts, images)
    problems, requests = tab.problems, tab.requests
    moved, info["sliders"] = slider_problems(tab.page)
    problems += moved
    problems += width_problems(tab.page)
    if axe is not None:
        problems += accessibility_problems(tab.page, axe, tab.contrast_checked)

    # Formulas.
    static_math = re.search(r'class="math[\s"]', local_file(server.root, info["url"]).read_text(
        encoding="utf-8", errors="replace")) is not None
    if static_math and not info["mathjaxLoaded"]:
        problems.append("the page has formulas but MathJax did not load")
    if static_math and info["containers"] == 0:
        problems.append("the page has formulas but no MathJax container")
    problems += [f"formula not typeset: {m!r}" for m in info["untypeset"]]
    problems += [f"MathJax error: {e}" for e in info["errors"]]
    problems += [f"raw TeX in the text: {r!r}" for r in info["raw"]]
    # Images.
    problems += [f"image not loaded: {src}" for src in info["badImages"]]
    # Internal links.
    for href in sorted(set(info["links"])):
        if urlsplit(href).scheme not in ("http", "https") or urlsplit(href).netloc != urlsplit(
                server.base).netloc:
            continue
        address, fragment = urldefrag(href)
        target = local_file(server.root, address)
        if not target.is_file():
            problems.append(f"broken link: {href} (no file {target.relative_to(server.root)})")
        elif fragment and target.suffix == ".html" and unquote(fragment) not in anchors_of(target):
            problems.append(f"broken anchor: {href}")
    problems += foreign_requests(requests)
    info["requests"] = requests
    return list(dict.fromkeys(problems)), info


def book_pages(html_root: Path) -> list[str]:
    """Every HTML page of the book (not the theme's or MathJax's own files)."""
    skip = {"_static", "_sources", "_images", "mathjax", "_downloads"}
    return sorted(p.relative_to(html_root).as_posix() for p in html_root.rglob("*.html")
                  if not skip & set(p.relative_to(html_root).parts[:-1]))


# --------------------------------------------------------------------------- tests

BROKEN_PAGE = r"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>broken</title>
<script>window.MathJax = {options: {processHtmlClass: "math"}};</script>
<script defer src="mathjax/tex-mml-chtml.js"></script></head>
<body>
<p><span class="math">\(\frac{1}{\undefinedmacro}\)</span> and <span class="math">\(a^b^c\)</span></p>
<div class="mathjax_ignore"><p>$$ e^{i\pi} $$ and \begin{align} a \end{align}</p></div>
<img src="missing.png" alt="missing">
<img src="http://192.0.2.1/tracker.png" alt="remote">
<a href="nowhere.html">a missing page</a> <a href="#no-such-anchor">a missing anchor</a>
<a href="page.html#there">a good link</a> <p id="there">here</p>
<p>readable text</p> <p id="faint" style="color: #ccc">faint text</p> <p style="color: #ccc">faint too</p>
<div style="background: #333"><p id="dark">dark text on a dark background, in a readable style</p></div>
<main><div style="width: 3000px">a row wider than any column</div>
<img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="></main>
<div class="ev-frames" id="ev-frames-stuck"><img class="ev-frame" alt="frame 1" src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==">
<label for="stuck">stuck</label><input id="stuck" type="range" min="0" max="1" value="0"><output>1</output></div>
<script>callAFunctionThatDoesNotExist();</script>
<script>console.error("logged error");</script>
</body></html>
"""


SECOND_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Second page</title></head><body><main>
<p style="color: #ccc">faint, in the first page's style</p>
<p id="fainter" style="color: #ddd">fainter, in a style of its own</p>
</main></body></html>
"""


def working_slider() -> str:
    """The HTML of a small figure that moves, as a chapter's cell displays it."""
    from ensembles_verified.frames import slider_figure

    def draw(ax, k):
        ax.plot([0, 1], [0, k])
        ax.set_ylim(0, 3)
    data, _ = slider_figure(draw, [1, 2, 3], name="lines", label="Slope k",
                            figsize=(3, 2))._repr_mimebundle_()
    return data["text/html"]


def test_the_checks_can_fail(browser, tmp_path):
    """Each kind of defect, planted in a small page, is reported."""
    (tmp_path / "page.html").write_text(BROKEN_PAGE, encoding="utf-8")
    os.symlink(mathjax_es5_dir(), tmp_path / "mathjax", target_is_directory=True)
    (tmp_path / "second.html").write_text(SECOND_PAGE.replace("</main>", working_slider() + "</main>"),
                                          encoding="utf-8")
    tab = Tab(browser)
    with LocalServer(tmp_path) as server:
        problems, info = check_page(tab, server, "page.html", axe=axe_source())
        second, second_info = check_page(tab, server, "second.html", axe=axe_source())
    tab.close()
    report = "\n".join(problems)
    # The second page repeats the first page's faint style (its contrast is known, it is
    # not sampled again) and shows a new one, which the tab's memory must not hide.
    assert any("color-contrast" in p and "#fainter" in p for p in second), \
        f"a new faint style on a second page was not reported: {second}"
    expected = {
        "undefined macro": "undefined macro",
        "TeX error": "MathJax error: merror",
        "raw $$": "raw TeX in the text: '$$",
        "raw \\begin": "raw TeX in the text: '\\\\begin{",
        "missing image": "image not loaded: missing.png",
        "remote image": "request to another host: http://192.0.2.1/tracker.png",
        "missing page": "broken link: " + server.base + "nowhere.html",
        "missing anchor": "broken anchor: " + server.base + "page.html#no-such-anchor",
        "thrown error": "JavaScript error: callAFunctionThatDoesNotExist is not defined",
        "logged error": "console error: logged error",
        "a slider that moves nothing": "figure ev-frames-stuck: moving its slider",
        "404": "HTTP 404 for " + server.base + "missing.png",
        "sideways scroll": "the page scrolls sideways",
        "wider than the column": "wider than its column",
        "image without alt text": "accessibility (critical): image-alt",
        "faint text": "accessibility (serious): color-contrast",
        "faint text (its node)": "#faint",
        "a readable style on a dark background": "#dark",
    }
    missing = [name for name, needle in expected.items() if needle not in report]
    assert not missing, f"not reported: {missing}\nreport:\n{report}"
    assert "page.html#there" not in report, "a good link was reported"
    assert info["containers"] >= 1, "MathJax did not typeset the planted formulas"
    assert second_info["sliders"] == 1 and not [p for p in second if "color-contrast" not in p], \
        f"a working figure that moves was reported (keyboard, width, axe) or not found: {second}"


def check_pages(context, server: LocalServer, pages: list[str], chapters: set[str]) -> dict:
    """Check ``pages`` one after the other in one tab: problems per page and the counts."""
    failures: dict[str, list[str]] = {}
    typeset = mathjax_requests = 0
    sliders: dict[str, int] = {}
    axe = axe_source()
    tab = Tab(context)
    for relpath in pages:
        # Each page is loaded at a phone's width, as a phone loads it, and checked there
        # (formulas, images, links, requests, figures that move, widths), then laid out
        # again at 1,400 px (the layout is CSS alone; loading the page twice would only
        # cost time) and checked at that width, where axe-core runs last.
        tab.page.set_viewport_size({"width": NARROW, "height": 900})
        problems, info = check_page(tab, server, relpath)
        events, fetched = len(tab.problems), len(tab.requests)  # what the tab recorded so far
        typeset += info["containers"]
        sliders[relpath] = info["sliders"]
        mathjax_requests += sum("/mathjax/" in url for url in info["requests"])
        stem = relpath[:-5].replace("/", "__")
        if 'http-equiv="refresh"' not in (server.root / relpath).read_text(encoding="utf-8"):
            if relpath in SHOT_CHAPTERS:  # the whole page, top to bottom, at both widths
                tab.page.screenshot(path=str(ARTIFACTS / f"{stem}__{NARROW}.png"), full_page=True,
                                     timeout=120_000)
            problems += resized_width_problems(tab, WIDE)
            if relpath in chapters:  # one screen centred on the first displayed formula
                chapter_screenshot(tab.page, ARTIFACTS / f"{stem}.png")
            if relpath in SHOT_CHAPTERS:
                tab.page.screenshot(path=str(ARTIFACTS / f"{stem}__{WIDE}.png"), full_page=True,
                                     timeout=120_000)
        problems += accessibility_problems(tab.page, axe, tab.contrast_checked)  # thins the formulas
        # errors, failed requests and requests to other hosts while the page was laid out
        # again, shot and audited
        problems += tab.problems[events:] + foreign_requests(tab.requests[fetched:])
        if problems:
            failures[relpath] = problems
    tab.close()
    return {"failures": failures, "typeset": typeset, "mathjax_requests": mathjax_requests,
            "sliders": sliders}


def check_book(html: Path) -> dict:
    """Every page of the built book checked by two browsers side by side (one per core,
    each with its own thread and context, every other page of a list sorted by size).

    The stage ``browser`` of the test run (``dodo.py``) runs it, through the test below,
    as soon as the build is done.
    """
    chapters = {nb.relative_to(ROOT).with_suffix(".html").as_posix() for nb in chapter_notebooks()}
    pages = book_pages(html)
    for old in ARTIFACTS.glob("*.png"):
        old.unlink()
    by_size = sorted(pages, key=lambda rel: -(html / rel).stat().st_size)
    with LocalServer(html) as server:
        def check_half(half: list[str]) -> dict:
            with chromium_context() as context:
                return check_pages(context, server, half, chapters)
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            results = list(pool.map(check_half, [by_size[0::2], by_size[1::2]]))
    return {"pages": pages, "chapters": chapters,
            "failures": {page: p for r in results for page, p in r["failures"].items()},
            "typeset": sum(r["typeset"] for r in results),
            "mathjax_requests": sum(r["mathjax_requests"] for r in results),
            "sliders": {page: n for r in results for page, n in r["sliders"].items()}}


def test_every_page_in_a_browser(built_book):
    assert (built_book / "mathjax" / "tex-mml-chtml.js").is_file(), \
        "MathJax is not served with the book (html_extra_path, _ext/offline_mathjax.py)"
    ensure_chromium()
    result = check_book(built_book)
    pages, chapters, failures = result["pages"], result["chapters"], result["failures"]
    typeset = result["typeset"]
    assert chapters <= set(pages), f"chapters without a page: {sorted(chapters - set(pages))}"
    report = "\n".join(f"{page}:\n  " + "\n  ".join(p) for page, p in sorted(failures.items()))
    assert not failures, f"{len(failures)} of {len(pages)} pages have problems:\n{report}"
    still = sorted(page for page in chapters
                   if re.match(r"book/\d\d_", page) and not result["sliders"].get(page))
    assert not still, f"chapters without a figure that moves: {still}"
    assert typeset > 0 and result["mathjax_requests"] > 0, \
        "no formula was typeset by the local MathJax"
    assert len(list(ARTIFACTS.glob("*.png"))) == len(chapters) + 2 * len(SHOT_CHAPTERS), \
        "a chapter screenshot is missing"
    print(f"{len(pages)} pages checked in Chromium, {typeset} formulas typeset, "
          f"{sum(result['sliders'].values())} figures that move operated from the keyboard, "
          f"{len(chapters)} chapter screenshots in {ARTIFACTS.relative_to(ROOT)}; widths at {WIDE} "
          f"and {NARROW} px and axe-core (serious, critical) clean")
