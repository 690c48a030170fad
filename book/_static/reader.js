// Ensembles, Verified: before printing, open every folded block (code, solutions).
window.addEventListener("beforeprint", () => {
  document.querySelectorAll("details").forEach((d) => { d.open = true; });
  document.querySelectorAll(".toggle-hidden").forEach((el) => el.classList.remove("toggle-hidden"));
});
