"""Estimators of the book that combine several models into one.

Import each module by its path (e.g. ``from ensemble_ref.ensembles.mixture_of_experts
import MixtureOfExperts``); this package exports nothing itself.
"""
