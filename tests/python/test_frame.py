# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""Values from a DataFrame are the text the CLI reads from DataFrame.to_csv."""
import datetime

import numpy as np
import pandas as pd
import pytest

import deid
from deid import _core
from deid._frame import encode_frame


def csv_table(frame, tmp_path):
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    return _core.read_table(str(path), ",")


def columns_of(table):
    out = {}
    for i, name in enumerate(table.names):
        labels = table.labels(i)
        out[name] = [labels[c] for c in table.codes(i)]
    return out


def mixed_frame():
    n = 7
    return pd.DataFrame({
        "int": [3, -1, 0, 3, 10**12, 7, 3],
        "float": [0.1, 1e20, 3.0, np.nan, -0.5, 1e-7, 2.5],
        "float_int": [1.0, 2.0, np.nan, 4.0, 5.0, 6.0, 7.0],
        "float32": np.array([0.1, 0.2, 0.3, 0.1, 0.5, 0.6, 0.7], dtype=np.float32),
        "bool": [True, False, True, True, False, True, False],
        "str": ["a", "b,c", 'say "hi"', "", None, "line\nbreak", "ü"],
        "mixed": [1, 1.0, True, "1", None, np.nan, 2.5],
        "cat": pd.Categorical(["x", "y", None, "x", "z", "y", "x"], categories=["z", "y", "x"]),
        "cat_int": pd.Categorical([1, 2, 1, 2, 3, 3, 1]),
        "date": pd.to_datetime(["2020-01-31", "2021-02-28", None, "2020-01-31", "1999-12-31", "2000-01-01",
                                "2020-01-31"]),
        # Timestamps one by one: pandas 2 and later infer one format for a list of strings.
        "datetime": pd.to_datetime([pd.Timestamp(t) if t else None for t in [
            "2020-01-31 10:00", "2021-02-28", None, "2020-01-31", "1999-12-31 23:59:59", "2000-01-01",
            "2020-01-31"]]),
        "Int64": pd.array([1, None, 3, 4, 5, 6, 7], dtype="Int64"),
        "string": pd.array(["p", None, "q", "p", "r", "s", "t"], dtype="string"),
        "boolean": pd.array([True, None, False, True, True, False, True], dtype="boolean"),
        "obj_dates": [datetime.date(2020, 1, 1)] * n,
        "period": pd.period_range("2020-01", periods=n, freq="M"),
        "timedelta": pd.to_timedelta([1, 2, 3, None, 5, 6, 7], unit="h"),
    })


def test_every_dtype_reads_as_the_csv_pandas_writes(tmp_path):
    frame = mixed_frame()
    from_frame = columns_of(encode_frame(frame))
    from_csv = columns_of(csv_table(frame, tmp_path))
    assert list(from_frame) == list(from_csv)
    for name in from_csv:
        assert from_frame[name] == from_csv[name], name


def test_codes_number_values_in_order_of_first_appearance(tmp_path):
    frame = mixed_frame()
    t, c = encode_frame(frame), csv_table(frame, tmp_path)
    for i in range(len(t.names)):
        assert list(t.codes(i)) == list(c.codes(i)), t.names[i]
        assert t.labels(i) == c.labels(i), t.names[i]


def test_missing_values_are_the_empty_value():
    frame = pd.DataFrame({"a": ["x", None, np.nan, "x"], "b": [1.0, np.nan, 2.0, np.nan],
                          "c": pd.to_datetime(["2020-01-01", None, "2020-01-02", None])})
    cols = columns_of(encode_frame(frame))
    assert cols["a"] == ["x", "", "", "x"]
    assert cols["b"] == ["1.0", "", "2.0", ""]
    assert cols["c"] == ["2020-01-01", "", "2020-01-02", ""]


def test_missing_values_need_a_hierarchy_row_like_an_empty_field(tmp_path):
    frame = pd.DataFrame({"sex": ["m", "f", None, "m"] * 5, "x": range(20)})
    job = {"attributes": {"sex": {"role": "quasi-identifying"}}, "default-role": "insensitive",
           "privacy": [{"k-anonymity": {"k": 2}}]}
    with pytest.raises(deid.InputError, match="value '' .*not in") as e:
        deid.anonymize(frame, job, hierarchies={"sex": {"m": ["*"], "f": ["*"]}})
    # Line 4: row 2 (0-based) of the CSV pandas would write, after the header.
    assert "DataFrame:4" in str(e.value)
    r = deid.anonymize(frame, job, hierarchies={"sex": {"m": ["*"], "f": ["*"], "": ["*"]}})
    assert r.found
    frame.to_csv(tmp_path / "s.csv", index=False)
    r2 = deid.anonymize(str(tmp_path / "s.csv"), job, hierarchies={"sex": {"m": ["*"], "f": ["*"], "": ["*"]}})
    assert r.info["transformation"] == r2.info["transformation"]
    assert r.data["sex"].astype(str).tolist() == r2.data["sex"].astype(str).tolist()


def test_header_errors_as_the_csv_reader():
    frame = pd.DataFrame([[1, 2]], columns=["a", "a"])
    with pytest.raises(deid.InputError, match="duplicate column name 'a'"):
        encode_frame(frame)
    with pytest.raises(deid.InputError, match="no data records"):
        encode_frame(pd.DataFrame({"a": []}))


def signed_zero_frame():
    """Floats with -0.0 beside 0.0 (different texts in a CSV, one key for
    pandas.factorize), missing values between them."""
    x = [0.0, -0.0, np.nan, 1.5, -0.0, 0.0, -1.5, np.nan] * 3
    return pd.DataFrame({
        "x": x,
        "x32": np.array(x, dtype=np.float32),
        "xF64": pd.array([None if v != v else v for v in x], dtype="Float64"),
        "n": range(len(x)),
    })


def test_signed_zero_stays_apart_from_zero(tmp_path):
    frame = signed_zero_frame()
    from_frame, from_csv = columns_of(encode_frame(frame)), columns_of(csv_table(frame, tmp_path))
    for name in ("x", "x32", "xF64"):
        assert from_frame[name][:8] == ["0.0", "-0.0", "", "1.5", "-0.0", "0.0", "-1.5", ""], name
        assert from_frame[name] == from_csv[name], name
    t, c = encode_frame(frame), csv_table(frame, tmp_path)
    for i in range(3):
        assert list(t.codes(i)) == list(c.codes(i)) and t.labels(i) == c.labels(i)


def test_signed_zero_releases_the_bytes_of_the_csv_path(tmp_path):
    frame = signed_zero_frame()[["x", "n"]]
    levels = {"0.0": ["zero", "*"], "-0.0": ["zero", "*"], "1.5": ["other", "*"], "-1.5": ["other", "*"],
              "": ["other", "*"]}
    job = {"attributes": {"x": {"role": "quasi-identifying"}}, "default-role": "insensitive",
           "privacy": [{"k-anonymity": {"k": 2}}]}
    from_frame = deid.anonymize(frame, job, hierarchies={"x": levels})
    frame.to_csv(tmp_path / "in.csv", index=False)
    from_csv = deid.anonymize(str(tmp_path / "in.csv"), job, hierarchies={"x": levels})
    # Each value occurs at least 3 times: released as it is.
    assert from_frame.transformation == from_csv.transformation == {"x": 0}
    from_frame.to_csv(tmp_path / "frame.csv")
    from_csv.to_csv(tmp_path / "csv.csv")
    assert (tmp_path / "frame.csv").read_bytes() == (tmp_path / "csv.csv").read_bytes()
    assert from_frame.data["x"].astype(str).tolist()[:2] == ["0.0", "-0.0"]
