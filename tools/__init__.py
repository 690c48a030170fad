"""Scripts and helpers of the book's build and test run.

Run them from the repository root as ``python -m tools.<name>``.
"""
