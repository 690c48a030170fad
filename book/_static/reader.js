// Ensembles, Verified. Before printing, open every folded block (code, solutions).
window.addEventListener("beforeprint", () => {
  document.querySelectorAll("details").forEach((d) => { d.open = true; });
  document.querySelectorAll(".toggle-hidden").forEach((el) => el.classList.remove("toggle-hidden"));
});

// An inline formula wider than its line (a phone) scrolls sideways inside the line
// instead of running off the page; one that fits is left as MathJax set it.
function fitWideMath() {
  document.querySelectorAll("article mjx-container:not([display])").forEach((m) => {
    m.classList.remove("ev-wide-math");
    const line = m.closest("p, li, dd, dt, td, th, figcaption, div") || document.body;
    if (m.getBoundingClientRect().width > line.clientWidth) m.classList.add("ev-wide-math");
  });
}
window.addEventListener("load", () => {
  const startup = window.MathJax && window.MathJax.startup;
  (startup && startup.promise ? startup.promise : Promise.resolve()).then(fitWideMath);
});
let evResizeQueued = false;
window.addEventListener("resize", () => {
  if (evResizeQueued) return;
  evResizeQueued = true;
  requestAnimationFrame(() => { evResizeQueued = false; fitWideMath(); });
});
