// Ensembles, Verified. Before printing, open every folded block (code, solutions).
window.addEventListener("beforeprint", () => {
  document.querySelectorAll("details").forEach((d) => { d.open = true; });
  document.querySelectorAll(".toggle-hidden").forEach((el) => el.classList.remove("toggle-hidden"));
});

// An inline formula wider than its line (a phone) scrolls sideways inside the line
// instead of running off the page; one that fits is left as MathJax set it.
function fitWideMath() {
  const formulas = Array.from(document.querySelectorAll("article mjx-container:not([display])"));
  formulas.forEach((m) => m.classList.remove("ev-wide-math"));  // all written, then all read:
  const wide = formulas.filter((m) => {                          // one layout, not one per formula
    const line = m.closest("p, li, dd, dt, td, th, figcaption, div") || document.body;
    return m.getBoundingClientRect().width > line.clientWidth;
  });
  wide.forEach((m) => m.classList.add("ev-wide-math"));
}
// Measured again whenever the article's width changes: a window resized or a phone turned,
// and the theme's sidebars shown or hidden after it (the article narrows without a resize).
let evFitQueued = false;
function queueFit() {
  if (evFitQueued) return;
  evFitQueued = true;
  requestAnimationFrame(() => { evFitQueued = false; fitWideMath(); });
}
window.addEventListener("load", () => {
  const startup = window.MathJax && window.MathJax.startup;
  (startup && startup.promise ? startup.promise : Promise.resolve()).then(() => {
    fitWideMath();
    const article = document.querySelector("article");
    if (!article) return;
    if (!window.ResizeObserver) { window.addEventListener("resize", queueFit); return; }
    let width = article.clientWidth;
    new ResizeObserver(() => {
      if (article.clientWidth !== width) { width = article.clientWidth; queueFit(); }
    }).observe(article);
  });
});
