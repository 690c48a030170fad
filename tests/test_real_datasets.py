"""The real data sets shipped with the runtime: the published files, read offline, as documented."""

from __future__ import annotations

import gzip

import pytest

from ensembles_verified import datasets


def test_bikeshare_is_the_documented_table():
    frame = datasets.load_bikeshare()
    assert frame.shape == (8645, 15)
    assert (frame["bikers"] == frame["casual"] + frame["registered"]).all()
    for column, levels in [("mnth", 12), ("hr", 24), ("weathersit", 4)]:
        assert frame[column].dtype == "category" and frame[column].notna().all()
        assert frame[column].nunique() == levels
    assert list(frame["mnth"].cat.categories[:2]) == ["Jan", "Feb"] and frame["mnth"].cat.ordered


def test_caravan_is_imbalanced_and_integer_coded():
    frame = datasets.load_caravan()
    assert frame.shape == (5822, 86)
    assert frame["Purchase"].value_counts().to_dict() == {"No": 5474, "Yes": 348}
    assert all(str(t).startswith("int") for t in frame.drop(columns="Purchase").dtypes)


def test_khan_is_wide_with_its_published_split():
    X_train, y_train, X_test, y_test = datasets.load_khan()
    assert X_train.shape == (63, 2308) and X_test.shape == (20, 2308)
    assert len(y_train) == 63 and len(y_test) == 20
    assert sorted(set(y_train)) == [1, 2, 3, 4]


def test_a_changed_file_is_refused(monkeypatch, tmp_path):
    (tmp_path / "data").mkdir()
    raw = b"season,mnth\n1,Jan\n"
    (tmp_path / "data" / "bikeshare.csv.gz").write_bytes(gzip.compress(raw))
    monkeypatch.setattr(datasets.resources, "files", lambda package: tmp_path)
    with pytest.raises(ValueError, match="not the published file"):
        datasets.load_bikeshare()
