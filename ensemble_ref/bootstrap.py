"""Import path kept for the chapters: the bootstrap formulas live in :mod:`ensemble_ref.math.bootstrap`."""

from __future__ import annotations

from .math.bootstrap import *  # noqa: F401,F403
from .math.bootstrap import __all__ as _all_math_bootstrap

__all__ =  _all_math_bootstrap
