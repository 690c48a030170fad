"""What ``ensemble_ref`` offers to be called with data: its estimators and its tree builders.

The guards (``tests/test_hostile_inputs.py``, ``tests/test_sklearn_checks.py``,
``tests/test_one_formula_one_place.py``) compare their lists with this inventory, so an
estimator or a builder added to any module is found without being exported anywhere:

* an **estimator** is a public class with a ``fit`` method defined in a module of
  ``ensemble_ref.trees`` or ``ensemble_ref.ensembles`` (abstract classes excluded);
* a **tree builder** is a public function of those modules whose name starts with
  ``grow`` or ``build`` (``grow_tree``, ``grow_hist_tree``, ``build_histogram_tree``, ...).

The modules are found with ``pkgutil.walk_packages`` and their members with ``inspect``.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from types import ModuleType

SUBPACKAGES = ("ensemble_ref.trees", "ensemble_ref.ensembles")
BUILDER_PREFIXES = ("grow", "build")


def modules() -> list[ModuleType]:
    """Every module of the sub-packages that hold estimators and trees, imported."""
    found = []
    for name in SUBPACKAGES:
        package = importlib.import_module(name)
        found += [importlib.import_module(info.name)
                  for info in pkgutil.walk_packages(package.__path__, package.__name__ + ".")]
    return found


def _defined(module: ModuleType) -> list[tuple[str, object]]:
    """The public members ``module`` defines itself (not the ones it imports)."""
    return [(name, obj) for name, obj in vars(module).items()
            if not name.startswith("_") and getattr(obj, "__module__", None) == module.__name__]


def estimator_classes(mods: list[ModuleType] | None = None) -> dict[str, type]:
    """Class name -> class, for every estimator (a public class with ``fit``) of ``mods``."""
    found: dict[str, type] = {}
    for module in modules() if mods is None else mods:
        for name, obj in _defined(module):
            if inspect.isclass(obj) and callable(getattr(obj, "fit", None)) and not inspect.isabstract(obj):
                assert name not in found, f"two estimators are called {name}"
                found[name] = obj
    return found


def tree_builders(mods: list[ModuleType] | None = None) -> dict[str, object]:
    """``"trees.readable.grow_tree"``-style name -> function, for every public grow*/build* function."""
    found = {}
    for module in modules() if mods is None else mods:
        for name, obj in _defined(module):
            if inspect.isfunction(obj) and name.startswith(BUILDER_PREFIXES):
                found[f"{module.__name__.removeprefix('ensemble_ref.')}.{name}"] = obj
    return found
