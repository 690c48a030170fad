# The kernels that execute the chapters during the book's build (_ext/sharp_figures.py):
# figures are drawn at twice their displayed resolution, so they stay sharp on
# high-density screens and in print.
c = get_config()  # noqa: F821
c.InlineBackend.figure_formats = {"retina"}
c.HistoryManager.enabled = False  # no history database in the repository
