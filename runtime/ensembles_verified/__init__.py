"""The book's runtime: what the chapters of *Ensembles, Verified* use besides the algorithms.

Nothing here is an ensemble method (those are in ``ensemble_ref``). :mod:`.claims`
turns the book's sentences into checks that can fail; :mod:`.stats` holds the
Monte Carlo bookkeeping the chapters repeat (standard errors, the replications a
check needs to rule out its rival); :mod:`.seeds` derives every random draw of a
chapter from its one seed; :mod:`.notebook` holds the chapters' plumbing (gluing
numbers and text into the prose, stacking members' predictions, staged error curves);
:mod:`.cross_validation` the k-fold error the chapters measure with; :mod:`.frames`
the figures that move (a slider over frames the chapter draws, offline);
:mod:`.selfcheck` and :mod:`.answers` check the readers' answers to the exercises.
"""

from .claims import ClaimError, Claims, Rival
from .cross_validation import cross_val_error, kfold_indices
from .notebook import glue_numbers, glue_text, member_outputs, staged_error_curve
from .seeds import ChapterSeed
from .stats import mean_and_se, power_against_rival, replications_for_power

__all__ = ["ChapterSeed", "ClaimError", "Claims", "Rival", "glue_numbers", "glue_text",
           "member_outputs", "staged_error_curve", "mean_and_se", "power_against_rival", "replications_for_power",
           "cross_val_error", "kfold_indices"]
