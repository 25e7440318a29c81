# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""The four forms of hierarchies= and the builders of deid.hierarchy."""
import pandas as pd
import pytest

import deid
from conftest import ADULT, EXAMPLES, run_cli

QIS = ["age", "education", "marital-status", "native-country", "race", "salary-class", "sex", "workclass",
       "occupation"]
JOB = {
    "attributes": {q: {"role": "quasi-identifying", "hierarchy": str(ADULT / "hierarchies" / f"{q}.csv")}
                   for q in QIS if q != "age"},
    "default-role": "insensitive",
    "privacy": [{"k-anonymity": {"k": 5}}],
    "suppression-limit": 0.05,
}


def read_hierarchy(path):
    return pd.read_csv(path, sep=";", header=None, dtype=str, keep_default_na=False)


@pytest.fixture(scope="module")
def expected(adult_frame):
    return deid.anonymize(adult_frame, EXAMPLES / "adult.yaml")


def test_hierarchy_as_dataframe_dict_path_equal_the_file(adult_frame, expected):
    path = ADULT / "hierarchies" / "age.csv"
    frame = read_hierarchy(path)
    as_dict = {row[0]: list(row[1:]) for row in frame.itertuples(index=False)}
    for h in (frame, as_dict, path, str(path)):
        r = deid.anonymize(adult_frame, JOB, hierarchies={"age": h})
        assert r.info["transformation"] == expected.info["transformation"]
        assert r.information_loss == expected.information_loss


def test_hierarchies_override_a_yaml_job(adult_frame, expected, tmp_path):
    # The age hierarchy in memory replaces the file the job names.
    frame = read_hierarchy(ADULT / "hierarchies" / "age.csv")
    r = deid.anonymize(adult_frame, EXAMPLES / "adult.yaml", hierarchies={"age": frame})
    assert r.info["transformation"] == expected.info["transformation"]


def test_inline_builder_equals_the_cli(adult_frame, cli, tmp_path):
    builder = {"type": "intervals", "min": 0, "max": 100, "widths": [5, 10, 20, 40]}
    r = deid.anonymize(adult_frame, JOB, hierarchies={"age": builder})
    built = deid.hierarchy.intervals(adult_frame["age"], min=0, max=100, widths=[5, 10, 20, 40])
    r2 = deid.anonymize(adult_frame, JOB, hierarchies={"age": built})
    assert r.info["transformation"] == r2.info["transformation"]
    assert r.information_loss == r2.information_loss
    # deid hierarchy writes the same table.
    run_cli(cli, "hierarchy", "intervals", "--input", ADULT / "adult.csv", "--column", "age", "--min", "0",
            "--max", "100", "--widths", "5,10,20,40", "-o", tmp_path / "age.csv")
    pd.testing.assert_frame_equal(built, read_hierarchy(tmp_path / "age.csv"), check_dtype=False)
    deid.hierarchy.to_csv(built, tmp_path / "py-age.csv")
    assert (tmp_path / "py-age.csv").read_bytes() == (tmp_path / "age.csv").read_bytes()


def test_builders():
    m = deid.hierarchy.masking(["81675", "81677", "12345"], levels=2)
    assert m.iloc[0].tolist() == ["81675", "8167*", "816**", "*"]
    d = deid.hierarchy.dates(pd.Series(pd.to_datetime(["2020-03-04", "2020-03-04"])))
    # A missing value is the empty value, which is no date (as in deid hierarchy).
    with pytest.raises(deid.JobError, match="value .. is not a date"):
        deid.hierarchy.dates(pd.Series(pd.to_datetime(["2020-03-04", None])))
    assert d.iloc[0].tolist()[:4] == ["2020-03-04", "2020-03", "2020", "2020-2029"]
    g = deid.hierarchy.grouping(["b", "a", "c", "d"], order=["a", "b", "c", "d"], sizes=[2])
    assert g.set_index(0).loc["b"].tolist() == ["a..b", "*"]
    with pytest.raises(deid.JobError, match="widths"):
        deid.hierarchy.intervals([1, 2], min=0, max=10, widths=[])
    with pytest.raises(deid.JobError, match="not a number|number"):
        deid.hierarchy.intervals(["x"], min=0, max=10, widths=[5])
