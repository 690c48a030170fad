"""Speed of ensemble_ref against scikit-learn and xgboost (``python benchmarks/run.py``)."""
