"""Import path kept for the chapters: the loss functions live in :mod:`ensemble_ref.math.losses`."""

from __future__ import annotations

from .math.losses import *  # noqa: F401,F403
from .math.losses import __all__ as _all_math_losses

__all__ =  _all_math_losses
