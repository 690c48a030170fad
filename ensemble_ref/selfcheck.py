"""Import path kept for the chapters: the self-checks live in :mod:`ensemble_ref.harness.selfcheck`."""

from __future__ import annotations

from .harness.selfcheck import *  # noqa: F401,F403
from .harness.selfcheck import __all__ as _all_harness_selfcheck

__all__ =  _all_harness_selfcheck
