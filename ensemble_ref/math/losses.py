r"""Loss functions with their first and second derivatives (chapters on boosting).

Every boosting method in the book is driven by a loss :math:`L(y, F)` of a label
or target :math:`y` and a raw score :math:`F` (the model's output before any
link function). Gradient boosting fits each new tree to the *negative gradient*

.. math:: r_i = -\frac{\partial L(y_i, F)}{\partial F}\Big|_{F = F_{m-1}(x_i)},

and the second-order (XGBoost-style) booster uses the gradient
:math:`g_i = \partial L / \partial F` and the hessian
:math:`h_i = \partial^2 L / \partial F^2` together (equation ``eq-xgb-taylor``).

Each loss below is three small pure functions, vectorised over numpy arrays:
``<name>(y, F)``, ``<name>_gradient(y, F)`` and ``<name>_hessian(y, F)``, all
returning one value per sample. The conventions (labels; loss; gradient :math:`g`
and hessian :math:`h`) are:

* ``squared_error`` (real :math:`y`): :math:`\tfrac12 (y - F)^2`; :math:`g = F - y`, :math:`h = 1`;
* ``absolute_error`` (real :math:`y`): :math:`|y - F|`;
  :math:`g = \operatorname{sign}(F - y)`, :math:`h = 0`;
* ``log_loss`` (:math:`y \in \{0, 1\}`): :math:`\log(1 + e^{F}) - yF`;
  :math:`g = p - y`, :math:`h = p(1 - p)`;
* ``exponential_loss`` (:math:`y \in \{-1, +1\}`): :math:`e^{-yF}`;
  :math:`g = -y e^{-yF}`, :math:`h = e^{-yF}`;

with :math:`p = \sigma(F) = 1 / (1 + e^{-F})`. The factor :math:`\tfrac12` in
the squared error makes its gradient the plain residual :math:`F - y` (the
convention of the XGBoost paper); scikit-learn reports the mean squared error
and the binomial deviance, which are twice ``squared_error`` and twice
``log_loss``. The absolute error is not differentiable at :math:`F = y`; its
gradient there is the subgradient ``-1`` (scikit-learn's choice) and its
hessian is ``0`` everywhere (it is piecewise linear), which is why gradient
boosting replaces Newton leaf values by leaf medians for this loss.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ..core.validation import as_output, check_choice, check_pair, check_reals

__all__ = [
    "sigmoid",
    "squared_error",
    "squared_error_gradient",
    "squared_error_hessian",
    "absolute_error",
    "absolute_error_gradient",
    "absolute_error_hessian",
    "log_loss",
    "log_loss_gradient",
    "log_loss_hessian",
    "exponential_loss",
    "exponential_loss_gradient",
    "exponential_loss_hessian",
    "Loss",
    "get_loss",
]



# --- the formulas, unvalidated: the estimators call these through :class:`Loss` ------------------


def _sigmoid(F):
    return np.exp(-np.logaddexp(0.0, -F))  # 1 / (1 + e^{-F}), no overflow


def _squared_error(y, F):
    return 0.5 * (y - F) ** 2  # eq-loss-squared


def _squared_error_gradient(y, F):
    return F - y


def _squared_error_hessian(y, F):
    return np.ones_like(F)


def _absolute_error(y, F):
    return np.abs(y - F)  # eq-loss-absolute


def _absolute_error_gradient(y, F):
    return np.where(F > y, 1.0, -1.0)


def _absolute_error_hessian(y, F):
    return np.zeros_like(F)


def _log_loss(y, F):
    return np.logaddexp(0.0, (1.0 - 2.0 * y) * F)  # eq-loss-logistic: log(1 + e^F) - yF


def _log_loss_gradient(y, F):
    return np.exp(-np.logaddexp(0.0, -F)) - y


def _log_loss_hessian(y, F):
    return np.exp(-np.logaddexp(0.0, -F) - np.logaddexp(0.0, F))  # p (1 - p)


def _exponential_loss(y, F):
    return np.exp(-y * F)  # eq-loss-exponential


def _exponential_loss_gradient(y, F):
    return -y * np.exp(-y * F)


def _exponential_loss_hessian(y, F):
    return np.exp(-y * F)


# --- the public, validating functions ------------------------------------------------------------


def sigmoid(F: Any) -> np.ndarray | float:
    r"""The logistic function :math:`\sigma(F) = 1 / (1 + e^{-F})`, without overflow.

    Computed as :math:`\exp(-\log(1 + e^{-F}))` with ``numpy.logaddexp``, which
    is exact in floating point for large :math:`|F|` (no ``exp`` overflow).
    """
    return as_output(_sigmoid(check_reals(F, "F")))


# --- squared error -------------------------------------------------------------------


def squared_error(y: Any, F: Any) -> np.ndarray | float:
    r"""Half squared error :math:`L(y, F) = \tfrac12 (y - F)^2`, one value per sample."""
    y, F = check_pair(y, F)
    return as_output(_squared_error(y, F))


def squared_error_gradient(y: Any, F: Any) -> np.ndarray | float:
    r""":math:`\partial L / \partial F = F - y`, so the negative gradient is the residual."""
    y, F = check_pair(y, F)
    return as_output(_squared_error_gradient(y, F))


def squared_error_hessian(y: Any, F: Any) -> np.ndarray | float:
    r""":math:`\partial^2 L / \partial F^2 = 1`."""
    y, F = check_pair(y, F)
    return as_output(_squared_error_hessian(y, F))


# --- absolute error ------------------------------------------------------------------


def absolute_error(y: Any, F: Any) -> np.ndarray | float:
    r"""Absolute error :math:`L(y, F) = |y - F|`, one value per sample."""
    y, F = check_pair(y, F)
    return as_output(_absolute_error(y, F))


def absolute_error_gradient(y: Any, F: Any) -> np.ndarray | float:
    r""":math:`\partial L / \partial F = \operatorname{sign}(F - y)`, and :math:`-1` at :math:`F = y`.

    At :math:`F = y` every value in :math:`[-1, 1]` is a subgradient. The choice
    :math:`-1` (negative gradient :math:`+1`) is scikit-learn's; it matters in
    gradient boosting, where every leaf median puts one residual exactly at the
    kink, and it lets :mod:`ensemble_ref.ensembles.gradient_boosting` reproduce scikit-learn.
    """
    y, F = check_pair(y, F)
    return as_output(_absolute_error_gradient(y, F))


def absolute_error_hessian(y: Any, F: Any) -> np.ndarray | float:
    r""":math:`\partial^2 L / \partial F^2 = 0` where it exists (piecewise linear loss)."""
    y, F = check_pair(y, F)
    return as_output(_absolute_error_hessian(y, F))


# --- log loss (binary cross-entropy on the logit scale) ---------------------------------


def log_loss(y: Any, F: Any) -> np.ndarray | float:
    r"""Log loss :math:`L(y, F) = \log(1 + e^{F}) - yF` for :math:`y \in \{0, 1\}`.

    This is :math:`-[y \log p + (1 - y) \log(1 - p)]` with :math:`p = \sigma(F)`,
    computed as :math:`\log(1 + e^{(1 - 2y)F})` with ``logaddexp``, which is finite
    and accurate for any finite :math:`F` (no cancellation for large scores).
    """
    y, F = check_pair(y, F, labels="01")
    return as_output(_log_loss(y, F))


def log_loss_gradient(y: Any, F: Any) -> np.ndarray | float:
    r""":math:`\partial L / \partial F = \sigma(F) - y = p - y`."""
    y, F = check_pair(y, F, labels="01")
    return as_output(_log_loss_gradient(y, F))


def log_loss_hessian(y: Any, F: Any) -> np.ndarray | float:
    r""":math:`\partial^2 L / \partial F^2 = p (1 - p)`, computed as :math:`\sigma(F)\sigma(-F)`.

    The product form keeps full relative precision when :math:`p` is close to 1.
    """
    y, F = check_pair(y, F, labels="01")
    return as_output(_log_loss_hessian(y, F))


# --- exponential loss (AdaBoost) ---------------------------------------------------------


def exponential_loss(y: Any, F: Any) -> np.ndarray | float:
    r"""Exponential loss :math:`L(y, F) = e^{-yF}`, :math:`y \in \{-1, +1\}` (AdaBoost's loss)."""
    y, F = check_pair(y, F, labels="pm1")
    return as_output(_exponential_loss(y, F))


def exponential_loss_gradient(y: Any, F: Any) -> np.ndarray | float:
    r""":math:`\partial L / \partial F = -y\, e^{-yF}`."""
    y, F = check_pair(y, F, labels="pm1")
    return as_output(_exponential_loss_gradient(y, F))


def exponential_loss_hessian(y: Any, F: Any) -> np.ndarray | float:
    r""":math:`\partial^2 L / \partial F^2 = y^2 e^{-yF} = e^{-yF}`."""
    y, F = check_pair(y, F, labels="pm1")
    return as_output(_exponential_loss_hessian(y, F))


# --- lookup by name ----------------------------------------------------------------------


@dataclass(frozen=True)
class Loss:
    """A loss and its two derivatives, looked up by name with :func:`get_loss`."""

    name: str
    value: Callable[[Any, Any], Any]
    gradient: Callable[[Any, Any], Any]
    hessian: Callable[[Any, Any], Any]

    def unchecked(self, part: str) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
        """The unvalidated ``value``, ``gradient`` or ``hessian`` for validated float arrays.

        Estimators validate ``y`` once per fit and call this in every round. It is
        looked up in this module at call time, so the formula has one definition.
        """
        suffix = "" if part == "value" else f"_{part}"
        name = "exponential_loss" if self.name == "exponential" else self.name
        return globals()[f"_{name}{suffix}"]


_LOSSES = {
    "squared_error": Loss("squared_error", squared_error, squared_error_gradient,
                          squared_error_hessian),
    "absolute_error": Loss("absolute_error", absolute_error, absolute_error_gradient,
                           absolute_error_hessian),
    "log_loss": Loss("log_loss", log_loss, log_loss_gradient, log_loss_hessian),
    "exponential": Loss("exponential", exponential_loss, exponential_loss_gradient,
                        exponential_loss_hessian),
}


def get_loss(name: str) -> Loss:
    """Return the :class:`Loss` called ``name``.

    Parameters
    ----------
    name : {"squared_error", "absolute_error", "log_loss", "exponential"}
    """
    return _LOSSES[check_choice(name, "loss", sorted(_LOSSES))]
