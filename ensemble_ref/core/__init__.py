"""Base classes of the estimators and the one validation module (imported by path)."""
