"""Decision trees: the readable grower the book shows, and the fast engine the estimators use.

:mod:`.readable` is the short recursive grower of the chapter *Decision trees, the
base learner*; :mod:`.engine` is the one fast engine (presorted features, level
by level, the library-matching details) behind :mod:`.cart`, :mod:`.stump` and
:mod:`.second_order_tree`. Modules are imported by their path; nothing is
exported here.
"""
