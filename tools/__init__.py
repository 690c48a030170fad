"""Scripts and helpers of the book's build and test run; run them from the repository root as ``python -m tools.<name>``."""
