"""The book's real data sets, read from the files shipped with this package (no download).

Three tables of different kinds, as *An Introduction to Statistical Learning* publishes
them in its ``ISLP`` package (sources and licences in ``data/README.md``):

* :func:`load_bikeshare`: a regression with thousands of rows (hourly bike rentals,
  8,645 rows), with categorical columns (month, hour, weather) and many ties;
* :func:`load_caravan`: an imbalanced classification (5,822 customers, 6 % buyers)
  on 85 integer-coded columns;
* :func:`load_khan`: a wide classification (83 tumour samples, 2,308 genes, four
  classes), with its published train/test split.

Each loader checks the file's SHA-256 against the published file's, so a damaged or
edited copy is an error, not a silently different data set.
"""

from __future__ import annotations

import gzip
import hashlib
import io
from importlib import resources

import pandas as pd

SHA256 = {  # of the uncompressed files, as published in ISLP 0.6.0
    "bikeshare.csv": "ac6950ae6f11efcc69c29d6bb13e8881c001e27d36434660d59444a1414f712c",
    "caravan.csv": "e89d49b6fb8fe02d76bb5bb80d8e0dab473bf9f6a72515e30c259f6d7da42269",
    "khan_xtrain.csv": "12148ef490588eb8ac9de3edc89551962a0499bfe78f39726ad58d8d72fd8e90",
    "khan_xtest.csv": "f620e7c092bebd62697c48d0eb586a94533aea9cc98b2ecb65a8c8c2bfe2d05d",
    "khan_ytrain.csv": "ac58f9c840e9e7c47bd17494cf0fe23e7fc9b5371e0d54c1a2a6038f45f637ab",
    "khan_ytest.csv": "92fe0d43b0bb8351873102ca3651a39766c3708da37cf30042fa0fdc58ba01eb",
}
MONTHS = ["Jan", "Feb", "March", "April", "May", "June", "July", "Aug", "Sept", "Oct", "Nov", "Dec"]


def _read(name: str, **read_csv) -> pd.DataFrame:
    raw = gzip.decompress((resources.files(__package__) / "data" / f"{name}.gz").read_bytes())
    if hashlib.sha256(raw).hexdigest() != SHA256[name]:
        raise ValueError(f"data/{name}.gz is not the published file (its SHA-256 differs): "
                         "reinstall ensembles_verified")
    return pd.read_csv(io.BytesIO(raw), **read_csv)


def load_bikeshare() -> pd.DataFrame:
    """Hourly rentals of Capital Bikeshare (Washington, 2011): 8,645 rows.

    ``bikers`` (= ``casual + registered``) is the count to predict. ``mnth`` (Jan to Dec),
    ``hr`` (0 to 23) and ``weathersit`` are categorical columns (pandas ``category``;
    month and hour ordered), the rest numbers: ``season`` 1-4, ``day`` of the year,
    ``holiday``, ``weekday`` 0-6, ``workingday``, and the normalised ``temp``, ``atemp``
    (felt), ``hum`` and ``windspeed``.
    """
    frame = _read("bikeshare.csv")
    frame["mnth"] = pd.Categorical(frame["mnth"], categories=MONTHS, ordered=True)
    frame["hr"] = pd.Categorical(frame["hr"], categories=range(24), ordered=True)
    frame["weathersit"] = frame["weathersit"].astype("category")
    return frame


def load_caravan() -> pd.DataFrame:
    """Customers of a Dutch insurer (CoIL 2000): 5,822 rows, 85 integer-coded columns and
    ``Purchase`` ("Yes" for the 348 who bought caravan insurance, "No" otherwise)."""
    return _read("caravan.csv")


def load_khan() -> tuple[pd.DataFrame, pd.Series, pd.DataFrame, pd.Series]:
    """Gene expression of small round blue cell tumours: ``X_train`` (63 x 2,308),
    ``y_train``, ``X_test`` (20 x 2,308), ``y_test``; the classes are the four tumour
    types, coded 1 to 4, in the published split."""
    X_train, X_test = _read("khan_xtrain.csv"), _read("khan_xtest.csv")
    y_train, y_test = (_read(f"khan_y{part}.csv")["x"].rename("tumour") for part in ("train", "test"))
    return X_train, y_train, X_test, y_test
