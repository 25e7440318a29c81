# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""Parquet tables in jobs and on the command line (docs/python.md, "Parquet"):
`python -m deid` runs them through pyarrow and gives the CSV run's answers;
the tool alone refuses them before it writes anything."""
import hashlib
import json
import subprocess
import sys

import pandas as pd
import pytest

import deid
from conftest import ADULT, run_cli

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

QUASI = ["age", "education", "marital-status", "native-country", "race", "salary-class", "sex", "workclass",
         "occupation"]


def python_deid(*args, check=True):
    p = subprocess.run([sys.executable, "-m", "deid", "-q", *map(str, args)], capture_output=True, text=True)
    if check and p.returncode not in (0, 1):
        raise AssertionError(f"python -m deid {' '.join(map(str, args))}: exit {p.returncode}: {p.stderr}")
    return p


def job_text(input_key, input_path, output_key, output_path, result):
    attributes = "\n".join(f"  {q}: {{role: quasi-identifying, hierarchy: {ADULT / 'hierarchies' / (q + '.csv')}}}"
                           for q in QUASI)
    delimiter = '  delimiter: ";"\n' if input_key == "path" else ""
    return (f"input:\n  {input_key}: {input_path}\n{delimiter}attributes:\n{attributes}\n"
            "default-role: insensitive\nprivacy:\n  - k-anonymity: {k: 5}\nsuppression-limit: 0.05\n"
            "quality: {model: loss, aggregate: geometric-mean, gs-factor: 0.5}\n"
            f"output:\n  {output_key}: {output_path}\n  result: {result}\n")


@pytest.fixture(scope="module")
def adult_parquet(tmp_path_factory):
    """adult.csv as Parquet: age as int64 (its text is the CSV's), the rest strings."""
    path = tmp_path_factory.mktemp("parquet") / "adult.parquet"
    frame = pd.read_csv(ADULT / "adult.csv", sep=";", dtype={c: str for c in QUASI if c != "age"},
                        keep_default_na=False)
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), path)
    return path


@pytest.fixture(scope="module")
def csv_run(cli, tmp_path_factory):
    d = tmp_path_factory.mktemp("csv")
    job = d / "job.yaml"
    job.write_text(job_text("path", ADULT / "adult.csv", "path", d / "out.csv", d / "out.json"))
    assert run_cli(cli, "anonymize", job).returncode == 0
    return pd.read_csv(d / "out.csv", sep=";", dtype=str, keep_default_na=False), json.loads((d / "out.json").read_text())


def cells(table):
    """The column names and every cell's text of a pyarrow Table or a DataFrame of strings."""
    if isinstance(table, pd.DataFrame):
        return list(table.columns), {c: [str(v) for v in table[c]] for c in table.columns}
    return table.column_names, table.to_pydict()


def same_answer(a, b):
    for key in ("transformation", "information_loss", "suppressed_records", "classes"):
        assert a.get(key) == b.get(key), key


def test_a_parquet_job_gives_the_csv_runs_release(adult_parquet, csv_run, tmp_path):
    job = tmp_path / "job.yaml"
    job.write_text(job_text("parquet", adult_parquet, "parquet", tmp_path / "out.parquet", tmp_path / "out.json"))
    p = python_deid("anonymize", job)
    assert p.returncode == 0, p.stderr
    released = pq.read_table(tmp_path / "out.parquet")
    assert all(pa.types.is_string(t) for t in released.schema.types)
    frame, result = csv_run
    assert cells(released) == cells(frame)
    mine = json.loads((tmp_path / "out.json").read_text())
    same_answer(mine, result)
    files = {f["role"]: f for f in mine["files"]}
    assert files["input"]["path"] == str(adult_parquet)
    assert files["input"]["sha256"] == hashlib.sha256(adult_parquet.read_bytes()).hexdigest()
    assert files["output"]["sha256"] == hashlib.sha256((tmp_path / "out.parquet").read_bytes()).hexdigest()
    # The whole run again with one thread: the same bytes.
    again = tmp_path / "again.parquet"
    assert python_deid("-j", "1", "anonymize", job, "--output", again).returncode == 0
    assert again.read_bytes() == (tmp_path / "out.parquet").read_bytes()


def csv_job(tmp_path):
    """The adult job on the CSV file, its outputs in tmp_path."""
    job = tmp_path / "csv-job.yaml"
    job.write_text(job_text("path", ADULT / "adult.csv", "path", tmp_path / "job-out.csv", tmp_path / "job-out.json"))
    return job


def test_command_line_files_are_parquet_by_their_name(adult_parquet, csv_run, tmp_path):
    out = tmp_path / "released.PARQUET"
    p = python_deid("anonymize", csv_job(tmp_path), "--input", adult_parquet, "--output", out,
                    "--result", tmp_path / "r.json")
    assert p.returncode == 0, p.stderr
    frame, result = csv_run
    assert cells(pq.read_table(out)) == cells(frame)
    same_answer(json.loads((tmp_path / "r.json").read_text()), result)
    # A CSV job, its output as Parquet: the same cells.
    out2 = tmp_path / "from-csv.parquet"
    assert python_deid("anonymize", csv_job(tmp_path), "--output", out2).returncode == 0
    assert cells(pq.read_table(out2)) == cells(frame)


def test_verify_risk_and_utility_read_parquet(adult_parquet, tmp_path):
    job = tmp_path / "job.yaml"
    job.write_text(job_text("parquet", adult_parquet, "parquet", tmp_path / "out.parquet", tmp_path / "out.json"))
    assert python_deid("anonymize", job).returncode == 0
    v = python_deid("verify", job, "--result", tmp_path / "out.json")
    assert v.returncode == 0, v.stdout + v.stderr
    # A release altered in one cell fails verification.
    table = pq.read_table(tmp_path / "out.parquet")
    sex = table.column("sex").to_pylist()
    sex[0] = "Unknown" if sex[0] != "Unknown" else "Other"
    table = table.set_column(table.column_names.index("sex"), "sex", pa.array(sex, pa.string()))
    pq.write_table(table, tmp_path / "bad.parquet")
    assert python_deid("verify", job, "--output", tmp_path / "bad.parquet").returncode == 1
    r = python_deid("risk", job, "--input", tmp_path / "out.parquet", "--json", tmp_path / "risk.json")
    assert r.returncode == 0, r.stderr
    assert json.loads((tmp_path / "risk.json").read_text())["rows"] == table.num_rows
    u = python_deid("utility", job, "--output", tmp_path / "out.parquet", "--json", tmp_path / "u.json")
    assert u.returncode == 0, u.stderr
    assert "attributes" in json.loads((tmp_path / "u.json").read_text())


def test_verify_builds_an_inline_hierarchy_from_a_parquet_input(adult_parquet, tmp_path):
    job = tmp_path / "job.yaml"
    text = job_text("parquet", adult_parquet, "parquet", tmp_path / "out.parquet", tmp_path / "out.json")
    text = text.replace(f"age: {{role: quasi-identifying, hierarchy: {ADULT / 'hierarchies' / 'age.csv'}}}",
                        "age: {role: quasi-identifying, hierarchy: {type: intervals, min: 0, max: 100, "
                        "widths: [10, 20]}}")
    assert "type: intervals" in text
    job.write_text(text)
    assert python_deid("anonymize", job).returncode == 0
    v = python_deid("verify", job, "--result", tmp_path / "out.json")
    assert v.returncode == 0, v.stdout + v.stderr


def test_the_package_function_reads_a_parquet_job(adult_parquet, csv_run, tmp_path):
    job = tmp_path / "job.yaml"
    job.write_text(job_text("parquet", adult_parquet, "path", tmp_path / "unused.csv", tmp_path / "unused.json"))
    result = deid.anonymize(None, str(job))
    frame, expected = csv_run
    assert cells(result.data) == cells(frame)
    same_answer(result.info, expected)
    assert result.verify()["valid"] is True
    # A Parquet file as data, by its name.
    by_path = deid.anonymize(str(adult_parquet), str(csv_job(tmp_path)))
    assert cells(by_path.data) == cells(frame)
    assert deid.risk(str(adult_parquet), str(csv_job(tmp_path))).info["rows"] == len(frame)


def test_the_tool_alone_refuses_parquet_and_writes_nothing(cli, adult_parquet, tmp_path):
    job = tmp_path / "job.yaml"
    job.write_text(job_text("parquet", adult_parquet, "parquet", tmp_path / "out.parquet", tmp_path / "out.json"))
    p = subprocess.run([cli, "anonymize", str(job)], capture_output=True, text=True)
    assert p.returncode == 2
    assert "python -m deid" in p.stderr and str(adult_parquet) in p.stderr
    assert sorted(x.name for x in tmp_path.iterdir()) == ["job.yaml"]


def test_bad_parquet_tables_are_input_errors(adult_parquet, tmp_path):
    not_parquet = tmp_path / "not.parquet"
    not_parquet.write_text("name;age\nAnn;30\n")
    job = csv_job(tmp_path)
    p = python_deid("anonymize", job, "--input", not_parquet, "--output", tmp_path / "o.csv", check=False)
    assert p.returncode == 2
    assert "not.parquet" in p.stderr and "cannot read the Parquet file: ArrowInvalid" in p.stderr
    assert "Traceback" not in p.stderr and "pyarrow/error.pxi" not in p.stderr
    assert not (tmp_path / "o.csv").exists()
    # An output over the input is refused before any work.
    p = python_deid("anonymize", job, "--input", adult_parquet, "--output", adult_parquet, check=False)
    assert p.returncode == 2 and "adult.parquet" in p.stderr
    # A column the job names is missing.
    pq.write_table(pa.table({"age": [30, 31]}), tmp_path / "narrow.parquet")
    p = python_deid("anonymize", job, "--input", tmp_path / "narrow.parquet", "--output", tmp_path / "o.parquet",
                    check=False)
    assert p.returncode == 2 and "education" in p.stderr
    assert not (tmp_path / "o.parquet").exists()
