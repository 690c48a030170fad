"""Decision trees written to be read: the chapter *Decision trees, the base learner* shows them.

The modules of this package are imported by their path
(``from ensemble_ref.trees.readable import grow_tree``); nothing is exported here.
"""
