# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""Arrow tables in (pyarrow Tables, RecordBatchReaders, any __arrow_c_stream__)
and out (Result.to_arrow): the same answers as from the DataFrame."""
import datetime

import pandas as pd
import pytest

import deid
from deid import _core
from deid._frame import encode_frame

pa = pytest.importorskip("pyarrow")

from conftest import EXAMPLES  # noqa: E402

JOB = str(EXAMPLES / "adult.yaml")


def columns_of(table):
    out = {}
    for i, name in enumerate(table.names):
        labels = table.labels(i)
        out[name] = [labels[c] for c in table.codes(i)]
    return out


def encode_arrow(data):
    return _core.encode_arrow_stream(data.__arrow_c_stream__(), "Arrow")


class StreamOnly:
    """An object that offers nothing but the Arrow PyCapsule interface."""

    def __init__(self, table):
        self._table = table

    def __arrow_c_stream__(self, requested_schema=None):
        return self._table.__arrow_c_stream__(requested_schema)


def without_times(info):
    out = {k: v for k, v in info.items() if k not in ("time_ms", "peak_rss_bytes")}
    if "search" in out:
        out["search"] = {k: v for k, v in out["search"].items() if k != "time_to_best_ms"}
    return out


@pytest.fixture(scope="module")
def adult_arrow(adult_frame):
    return pa.Table.from_pandas(adult_frame, preserve_index=False)


@pytest.fixture(scope="module")
def from_pandas(adult_frame):
    return deid.anonymize(adult_frame, JOB)


def test_every_arrow_type_reads_as_its_pandas_conversion():
    table = pa.table({
        "int8": pa.array([1, -2, None, 1, 127], pa.int8()),
        "uint64": pa.array([0, 2**64 - 1, 5, None, 5], pa.uint64()),
        "int64": pa.array([10**12, -1, 0, 10**12, None], pa.int64()),
        "float64": pa.array([0.1, 1e20, 3.0, float("nan"), -0.0], pa.float64()),
        "float_small": pa.array([1e-5, 0.0001, 123456789012345678.0, 1e16, 1.5e-7], pa.float64()),
        "float32": pa.array([0.1, 0.2, None, 1e20, 3.0], pa.float32()),
        "bool": pa.array([True, False, None, True, True]),
        "str": pa.array(["a", "b,c", None, "", "ü"]),
        "large": pa.array(["x", None, "y", "x", "a long string over twelve bytes"], pa.large_string()),
        "date": pa.array([datetime.date(2020, 1, 31), None, datetime.date(1969, 12, 31),
                          datetime.date(1, 1, 1), datetime.date(9999, 12, 31)], pa.date32()),
        "dict": pa.array(["p", "q", None, "p", "r"]).dictionary_encode(),
        "null": pa.nulls(5),
    })
    from_arrow = columns_of(encode_arrow(table))
    from_frame = columns_of(encode_frame(table.to_pandas()))
    assert list(from_arrow) == list(from_frame)
    for name in from_arrow:
        if name in ("int8", "uint64", "int64"):
            continue  # pandas makes integers with nulls floats (1.0); Arrow keeps them integers
        assert from_arrow[name] == from_frame[name], name
    assert from_arrow["int8"] == ["1", "-2", "", "1", "127"]
    assert from_arrow["int64"] == ["1000000000000", "-1", "0", "1000000000000", ""]
    assert from_arrow["float64"] == ["0.1", "1e+20", "3.0", "", "-0.0"]
    assert from_arrow["float_small"] == ["1e-05", "0.0001", "1.2345678901234568e+17", "1e+16", "1.5e-07"]
    assert from_arrow["uint64"] == ["0", "18446744073709551615", "5", "", "5"]
    assert from_arrow["date"] == ["2020-01-31", "", "1969-12-31", "0001-01-01", "9999-12-31"]
    assert from_arrow["bool"] == ["True", "False", "", "True", "True"]


def test_string_views_sliced_batches_and_dictionaries_of_numbers():
    values = ["short", None, "a value longer than twelve bytes", "short", "x" * 40]
    table = pa.table({"v": pa.array(values, pa.string_view()),
                      "d": pa.array([3, 1, 3, None, 2]).dictionary_encode()})
    assert columns_of(encode_arrow(table)) == {"v": ["short", "", values[2], "short", "x" * 40],
                                               "d": ["3", "1", "3", "", "2"]}
    sliced = pa.Table.from_batches([table.to_batches()[0].slice(2, 3)])
    assert columns_of(encode_arrow(sliced)) == {"v": [values[2], "short", "x" * 40], "d": ["3", "", "2"]}


def test_codes_follow_first_appearance_across_batches():
    batches = [pa.record_batch({"a": pa.array(["b", "a"]).dictionary_encode()}),
               pa.record_batch({"a": pa.array(["c", "a", "b"]).dictionary_encode()})]
    t = encode_arrow(pa.Table.from_batches(batches))
    assert t.labels(0) == ["b", "a", "c"]
    assert list(t.codes(0)) == [0, 1, 2, 1, 0]
    assert t.rows == 5


def test_table_reader_and_capsule_object_give_the_dataframes_answer(adult_frame, adult_arrow, from_pandas,
                                                                     tmp_path):
    expected = tmp_path / "pandas.csv"
    from_pandas.to_csv(expected)
    reader = pa.RecordBatchReader.from_batches(adult_arrow.schema, adult_arrow.to_batches(max_chunksize=1000))
    for i, data in enumerate([adult_arrow, reader, StreamOnly(adult_arrow)]):
        result = deid.anonymize(data, JOB)
        assert without_times(result.info) == without_times(from_pandas.info)
        out = tmp_path / f"arrow{i}.csv"
        result.to_csv(out)
        assert out.read_bytes() == expected.read_bytes()
        assert result.data.astype(str).equals(from_pandas.data.astype(str).reset_index(drop=True))


def test_a_dataframe_of_arrow_dtypes_takes_the_arrow_path(adult_frame, from_pandas, monkeypatch, tmp_path):
    calls = []
    encode = _core.encode_arrow_stream
    monkeypatch.setattr(_core, "encode_arrow_stream", lambda *a, **k: calls.append(1) or encode(*a, **k))
    frame = adult_frame.convert_dtypes(dtype_backend="pyarrow")
    assert all(isinstance(d, pd.ArrowDtype) for d in frame.dtypes)
    result = deid.anonymize(frame, JOB)
    assert calls, "the Arrow-backed DataFrame was converted value by value"
    assert without_times(result.info) == without_times(from_pandas.info)
    result.to_csv(tmp_path / "arrow.csv")
    from_pandas.to_csv(tmp_path / "pandas.csv")
    assert (tmp_path / "arrow.csv").read_bytes() == (tmp_path / "pandas.csv").read_bytes()
    assert result.verify()["valid"] is True
    # A column of a type Arrow and pandas render differently keeps the pandas path.
    calls.clear()
    mixed = frame.assign(when=pd.Series(pd.to_datetime(["2020-01-01 12:00"] * len(frame))).astype(
        pd.ArrowDtype(pa.timestamp("us"))))
    deid.anonymize(mixed, JOB)
    assert not calls


def test_risk_and_suppress_from_arrow(adult_frame, adult_arrow):
    risk = deid.risk(adult_arrow, JOB).info
    assert risk.pop("input") == "Arrow"
    assert risk == {k: v for k, v in deid.risk(adult_frame, JOB).info.items() if k != "input"}
    job = {"input": {"path": str(EXAMPLES / "adult" / "adult.csv"), "delimiter": ";"},
           "attributes": {"sex": {"role": "quasi-identifying"}, "race": {"role": "quasi-identifying"}},
           "default-role": "insensitive",
           "cell-suppression": {"k": 5, "combinations": [["sex", "race"]]}}
    a = deid.suppress(adult_arrow, job)
    p = deid.suppress(adult_frame, job)
    drop = ("files", "suppression", "time_ms", "peak_rss_bytes")  # the input's name; times
    assert {k: v for k, v in a.info.items() if k not in drop} == {k: v for k, v in p.info.items() if k not in drop}
    assert a.info["files"][0]["path"] == "Arrow"
    assert a.to_arrow().column("race").to_pylist() == p.data["race"].astype(str).tolist()


def test_to_arrow(adult_frame, adult_arrow):
    job = {"attributes": {q: {"role": "quasi-identifying", "hierarchy": str(EXAMPLES / "adult" / "hierarchies" / f"{q}.csv")}
                          for q in ("age", "sex", "race")},
           "default-role": "insensitive", "privacy": [{"k-anonymity": {"k": 5}}], "suppression-limit": 0.05}
    result = deid.anonymize(adult_arrow, job)
    from_pandas = deid.anonymize(adult_frame, job)
    out = result.to_arrow()
    assert out.column_names == list(result.data.columns)
    assert pa.types.is_dictionary(out.schema.field("age").type)
    assert out.column("age").to_pylist() == result.data["age"].astype(str).tolist()
    assert out.column("salary-class").equals(adult_arrow.column("salary-class"))  # insensitive: as given
    # From a DataFrame the same values.
    from_frame = from_pandas.to_arrow()
    for name in out.column_names:
        assert out.column(name).to_pylist() == from_frame.column(name).to_pylist(), name


def test_verify_reads_an_arrow_input_again(adult_arrow):
    assert deid.anonymize(adult_arrow, JOB).verify()["valid"] is True
    # A RecordBatchReader is read once: verified on the text the run read.
    reader = pa.RecordBatchReader.from_batches(adult_arrow.schema, adult_arrow.to_batches())
    result = deid.anonymize(reader, JOB)
    checks = result.verify()
    assert checks["valid"] is True
    assert {c["check"]: c["status"] for c in checks["checks"]}["rows"] == "ok"


def test_deid_verify_takes_tables(adult_arrow, tmp_path):
    result = deid.anonymize(adult_arrow, JOB)
    result.save_result(tmp_path / "r.json")
    checks = deid.verify(JOB, input=adult_arrow, output=result.to_arrow(), result=tmp_path / "r.json")
    assert checks["valid"] is True
    assert all(c["status"] != "fail" for c in checks["checks"])


def test_types_the_engine_does_not_read():
    ts = pa.table({"t": pa.array([datetime.datetime(2020, 1, 1, 12)] * 3), "q": ["a", "b", "a"]})
    with pytest.raises(deid.InputError, match=r"Arrow:1:1 \(column 't'\).*'tsu:'"):
        encode_arrow(StreamOnly(ts))
    # A pyarrow Table's such columns are cast to strings by Arrow first.
    assert deid._frame.ArrowSource(ts).encode(None).labels(0) == ["2020-01-01 12:00:00.000000"]


def test_errors_name_the_arrow_row(adult_arrow):
    job = {"attributes": {"age": {"role": "quasi-identifying"}}, "default-role": "insensitive",
           "privacy": [{"k-anonymity": {"k": 2}}]}
    with pytest.raises(deid.InputError, match=r"Arrow:2 \(column 'age'\).*'39' \(data line 2\)"):
        deid.anonymize(adult_arrow, job, hierarchies={"age": {"17": ["*"]}})
    with pytest.raises(deid.InputError, match="no rows"):
        encode_arrow(adult_arrow.slice(0, 0))
    dup = pa.Table.from_arrays([pa.array([1]), pa.array([2])], names=["a", "a"])
    with pytest.raises(deid.InputError, match="duplicate column name 'a'"):
        encode_arrow(dup)
    capsule = adult_arrow.__arrow_c_stream__()
    _core.encode_arrow_stream(capsule, "Arrow")
    with pytest.raises(ValueError, match="already consumed"):
        _core.encode_arrow_stream(capsule, "Arrow")
