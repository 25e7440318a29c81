# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""deid.inspect (docs/inspect.md, docs/python.md): a DataFrame or an Arrow
table is inspected as the CSV text of its values, with the JSON of
``deid inspect --json``, and its starter job runs."""
import datetime
import json

import numpy as np
import pandas as pd
import pytest

import deid

from conftest import ADULT, run_cli


def without_source(info):
    out = dict(info)
    out.pop("source")
    return out


def typed_frame(n=150):
    """Columns of every kind pandas holds: strings, nullable integers,
    floats with NaN, datetimes, object dates, categoricals, booleans."""
    first = ["James", "Mary", "John", "Linda", "Robert", "Susan", "David", "Karen"]
    last = ["Smith", "Johnson", "Brown", "Miller", "Davis", "Wilson"]
    return pd.DataFrame({
        "patient_id": [f"P-{i:04d}" for i in range(n)],
        "name": [f"{first[i % 8]} {last[(i * 5) % 6]}" for i in range(n)],
        "age": pd.array([18 + (i * 7) % 80 if i % 11 else None for i in range(n)], dtype="Int64"),
        "weight": [50.25 + (i % 13) * 1.5 if i % 9 else np.nan for i in range(n)],
        "admitted": pd.to_datetime([datetime.date(2020, 1, 1) + datetime.timedelta(days=i % 40) for i in range(n)]),
        "seen": pd.to_datetime([datetime.datetime(2021, 3, 4, 8 + i % 9, 15) for i in range(n)]),
        "birth": [datetime.date(1940 + i % 50, 1 + i % 12, 1 + i % 28) for i in range(n)],
        "sex": pd.Categorical(["f" if i % 3 else "m" for i in range(n)]),
        "zip": [f"{2100 + i % 6:05d}" for i in range(n)],
        "email": [f"p{i}@example.org" if i % 4 else None for i in range(n)],
        "smoker": [i % 5 == 0 for i in range(n)],
        "icd": [f"E1{i % 4}.{i % 7}" for i in range(n)],
    })


def test_a_dataframe_is_inspected_as_its_csv(tmp_path, cli):
    frame = typed_frame()
    path = tmp_path / "typed.csv"
    frame.to_csv(path, index=False)
    from_frame = deid.inspect(frame)
    from_csv = deid.inspect(path)
    assert from_frame.source == "DataFrame"
    assert from_csv.source == str(path)
    assert without_source(from_frame.to_dict()) == without_source(from_csv.to_dict())
    # ... which is the command's JSON, byte for byte.
    run_cli(cli, "inspect", path, "--json", tmp_path / "cli.json")
    assert from_csv.json == (tmp_path / "cli.json").read_text()
    # What was found (so that the comparison is not of two empty answers).
    columns = from_frame.columns
    assert columns.loc["age", "type"] == "integer" and columns.loc["age", "missing"] == 150 // 11 + 1
    assert columns.loc["weight", "type"] == "decimal"
    assert columns.loc["admitted", "type"] == "date"
    assert "D" not in columns.loc["email", "identifiers"] and "F" in columns.loc["email", "identifiers"]
    assert from_frame.roles["patient_id"] == "identifying"
    assert from_frame.roles["name"] == "identifying"
    assert "admitted" in from_frame.quasi_identifiers
    assert set(from_frame.identifiers["column"]) >= {"name", "email", "patient_id", "zip", "admitted"}
    assert list(from_frame.combinations.columns) == ["columns", "classes", "unique_records", "distinction",
                                                     "separation"]
    assert len(from_frame.combinations) == len(from_frame.info["combinations"]) > 0
    assert from_frame.summary() == from_csv.summary()


def test_adult_frame_as_the_command_on_adult_csv(adult_frame, tmp_path, cli):
    run_cli(cli, "inspect", ADULT / "adult.csv", "--json", tmp_path / "cli.json", "--max-combination-size", 2)
    expected = json.loads((tmp_path / "cli.json").read_text())
    got = deid.inspect(adult_frame, max_combination_size=2, delimiter=";").to_dict()
    assert without_source(got) == without_source(expected)
    assert got["records"] == 30162


def test_typed_arrow_columns_are_inspected_as_their_csv_text(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.csv as pacsv
    n = 120
    table = pa.table({
        "id": pa.array([1000 + i for i in range(n)], pa.int64()),
        "age": pa.array([20 + i % 70 if i % 7 else None for i in range(n)], pa.int32()),
        "score": pa.array([0.25 + (i % 9) * 1.5 if i % 8 else None for i in range(n)], pa.float64()),
        "visit": pa.array([datetime.date(2022, 5, 1) + datetime.timedelta(days=i % 30) for i in range(n)],
                          pa.date32()),
        "seen": pa.array([datetime.datetime(2022, 5, 1, i % 24, 30, 5) for i in range(n)], pa.timestamp("s")),
        "city": pa.array(["Springfield" if i % 2 else None for i in range(n)], pa.string()),
        "race": pa.array(["White", "Black", "Asian", "Other"] * (n // 4)).dictionary_encode(),
        "code": pa.array([f"A{i % 13}" for i in range(n)], pa.large_string()),
    })
    # The CSV text Arrow itself writes for these values (its own writer).
    path = tmp_path / "arrow.csv"
    pacsv.write_csv(table, path, pacsv.WriteOptions(quoting_style="needed"))
    from_arrow = deid.inspect(table)
    from_csv = deid.inspect(path)
    assert from_arrow.source == "Arrow"
    assert without_source(from_arrow.to_dict()) == without_source(from_csv.to_dict())
    columns = from_arrow.columns
    assert columns.loc["visit", "type"] == "date" and columns.loc["visit", "date_format"] == "%Y-%m-%d"
    assert columns.loc["score", "type"] == "decimal" and columns.loc["score", "missing"] == n // 8
    assert columns.loc["race", "distinct"] == 4
    # A RecordBatchReader in small batches gives the same (of the types read
    # from a stream as they are: only a Table's timestamps are cast to text).
    plain = table.drop_columns(["seen"])
    reader = pa.RecordBatchReader.from_batches(plain.schema, plain.to_batches(max_chunksize=7))
    assert deid.inspect(reader).to_dict() == deid.inspect(plain).to_dict()
    assert deid.inspect(plain).info["records"] == n


def test_the_starter_job_of_a_frame_runs_on_the_frame(adult_frame):
    inspection = deid.inspect(adult_frame)
    assert "\ninput:" not in inspection.job and "\noutput:" not in inspection.job
    result = deid.anonymize(adult_frame, inspection.job)
    assert result.found
    assert result.data.shape == adult_frame.shape or result.data.shape[0] == adult_frame.shape[0]


def test_the_starter_job_of_a_csv_file_is_the_commands(tmp_path, cli):
    data = tmp_path / "data" / "typed.csv"
    data.parent.mkdir()
    typed_frame().to_csv(data, index=False)
    inspection = deid.inspect(data)
    assert f"path: {data}" in inspection.job or json.dumps(str(data)) in inspection.job
    jobs = tmp_path / "jobs"
    jobs.mkdir()
    inspection.write_job(jobs / "py.yaml")
    run_cli(cli, "inspect", data, "--job", jobs / "cli.yaml")
    assert (jobs / "py.yaml").read_text() == (jobs / "cli.yaml").read_text()
    assert 'path: "../data/typed.csv"' in (jobs / "py.yaml").read_text()
    p = run_cli(cli, "anonymize", jobs / "py.yaml")
    assert p.returncode == 0, p.stderr
    assert (jobs / "typed-deid.csv").exists()
    # Never over the table inspected.
    with pytest.raises(deid.InputError, match="input data"):
        inspection.write_job(data)
    inspection.save_json(tmp_path / "i.json")
    assert json.loads((tmp_path / "i.json").read_text()) == inspection.to_dict()


def test_same_answer_for_any_thread_count_and_bad_arguments(tmp_path):
    frame = typed_frame()
    assert deid.inspect(frame, threads=1).json == deid.inspect(frame).json
    with pytest.raises(deid.JobError, match="max_combination_size 0"):
        deid.inspect(frame, max_combination_size=0)
    with pytest.raises(deid.JobError, match="max_combination_size 9"):
        deid.inspect(frame, max_combination_size=9)
    with pytest.raises(TypeError):
        deid.inspect(None)
    with pytest.raises(TypeError):
        deid.inspect([1, 2, 3])
    with pytest.raises(ValueError, match="Parquet"):
        deid.inspect(tmp_path / "t.parquet")
    with pytest.raises(deid.InputError, match="no rows|no data"):
        deid.inspect(frame.iloc[:0])
    assert deid.inspect(frame, max_combination_size=1).info["max_combination_size"] == 1
