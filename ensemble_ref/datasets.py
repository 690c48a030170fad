"""Import path kept for the chapters: the data sets live in :mod:`ensemble_ref.harness.datasets`."""

from __future__ import annotations

from .harness.datasets import *  # noqa: F401,F403
from .harness.datasets import __all__ as _all_harness_datasets

__all__ =  _all_harness_datasets
