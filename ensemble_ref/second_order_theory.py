"""Import path kept for the chapters: the code lives in :mod:`ensemble_ref.math.second_order_theory`."""

from __future__ import annotations

from .math.second_order_theory import *  # noqa: F401,F403
from .math.second_order_theory import __all__ as _all_math_second_order_theory

__all__ =  _all_math_second_order_theory
