"""Pure formulas of the book: functions of arrays, with no fitting and no state.

Import each module by its path (e.g. ``from ensemble_ref.math.mixture import
softmax_gate``); this package exports nothing itself.
"""
