"""The book's harness: checked claims and the helpers the chapters share.

Nothing here is an ensemble method. :mod:`.claims` turns the book's sentences
into checks that can fail; :mod:`.stats` holds the Monte Carlo bookkeeping the
chapters repeat (standard errors, the replications a check needs to rule out
its rival); :mod:`.notebook` holds the chapters' plumbing (gluing numbers into
the prose, stacking members' predictions, staged error curves).
"""

from .claims import ClaimError, Claims, Rival
from .notebook import glue_numbers, member_outputs, staged_error_curve
from .seeds import ChapterSeed
from .stats import mean_and_se, power_against_rival, replications_for_power

__all__ = ["ChapterSeed", "ClaimError", "Claims", "Rival", "glue_numbers", "member_outputs",
           "staged_error_curve", "mean_and_se", "power_against_rival", "replications_for_power"]
