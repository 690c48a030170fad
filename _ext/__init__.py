"""Sphinx extensions of the book (loaded by Jupyter Book from _config.yml's local_extensions)."""
