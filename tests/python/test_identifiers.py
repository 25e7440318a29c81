# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""Released identifiers in the Python package (docs/identifiers.md): the
DataFrame shows the pseudonyms, masks and shifted dates the CLI writes."""
import io

import pandas as pd
import pytest

import deid

from conftest import run_cli

SECRET = "correct horse battery staple"

PATIENTS = (
    "mrn,name,phone,admitted,age\n"
    "P-0001,Ann Smith,555-123-4567,2024-02-25,34\n"
    "P-0002,Bob Jones,555-987-6543,2023-12-30,37\n"
    "P-0003,Cid Brown,555-222-3333,2024-05-01,52\n"
    "P-0004,Dee White,555-444-5555,2022-07-14,58\n"
)

JOB = """
input: {path: patients.csv}
attributes:
  mrn:      {role: identifying, action: pseudonym}
  name:     {role: identifying}
  phone:    {role: identifying, action: mask, keep-last: 4}
  admitted: {role: identifying, action: date-shift}
  age:      {role: quasi-identifying, hierarchy: {type: intervals, min: 0, max: 100, widths: [10, 50]}}
identifiers: {secret: {env: DEID_TEST_SECRET}, person: mrn, shift-days: 30}
privacy: [{k-anonymity: {k: 2}}]
output: {path: out.csv}
"""


def test_the_dataframe_shows_what_the_cli_writes(cli, tmp_path, monkeypatch):
    monkeypatch.setenv("DEID_TEST_SECRET", SECRET)
    (tmp_path / "patients.csv").write_text(PATIENTS)
    (tmp_path / "job.yaml").write_text(JOB)
    frame = pd.read_csv(tmp_path / "patients.csv", dtype=str)
    result = deid.anonymize(frame, JOB)
    data = result.data
    assert list(data.columns) == ["mrn", "phone", "admitted", "age"]
    # P-0001, worked out in tests/unit/identifiers_test.cc: +11 days.
    assert data["mrn"].iloc[0] == "83e2c76d568f4c6d"
    assert data["phone"].iloc[0] == "********4567"
    assert data["admitted"].iloc[0] == "2024-03-07"
    assert result.info["identifiers"]["secret_fingerprint"] == "c00cc69366b264af"
    result.to_csv(str(tmp_path / "py.csv"))
    run_cli(cli, "anonymize", tmp_path / "job.yaml", "--output", tmp_path / "cli.csv")
    assert (tmp_path / "py.csv").read_bytes() == (tmp_path / "cli.csv").read_bytes()
    assert data.to_csv(index=False) == (tmp_path / "cli.csv").read_text()


def test_a_missing_secret_is_a_job_error(tmp_path, monkeypatch):
    monkeypatch.delenv("DEID_TEST_SECRET", raising=False)
    frame = pd.read_csv(io.StringIO(PATIENTS), dtype=str)
    with pytest.raises(deid.JobError, match="DEID_TEST_SECRET"):
        deid.anonymize(frame, JOB)


def test_linked_tables_are_left_to_the_command(tmp_path, monkeypatch, cli):
    # A job with linked tables is released by `deid anonymize`, which writes
    # them beside the job's table; the package says so instead of leaving
    # them out.
    monkeypatch.setenv("DEID_TEST_SECRET", SECRET)
    (tmp_path / "patients.csv").write_text(PATIENTS)
    (tmp_path / "visits.csv").write_text("mrn,ward\nP-0001,medicine\nP-0004,oncology\n")
    job = JOB + ("linked:\n  - {path: visits.csv, key: mrn, output: visits-deid.csv, "
                 "columns: {ward: {role: insensitive}}}\n")
    (tmp_path / "job.yaml").write_text(job)
    frame = pd.read_csv(io.StringIO(PATIENTS), dtype=str)
    with pytest.raises(deid.JobError, match="deid anonymize"):
        deid.anonymize(frame, tmp_path / "job.yaml")
    run_cli(cli, "anonymize", tmp_path / "job.yaml")
    visits = (tmp_path / "visits-deid.csv").read_text().splitlines()
    released = (tmp_path / "out.csv").read_text().splitlines()
    assert visits[0] == "mrn,ward"
    assert visits[1].split(",")[0] == released[1].split(",")[0]
    assert visits[2].split(",")[0] == released[4].split(",")[0]
