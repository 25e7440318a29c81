# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""Jobs with PostgreSQL tables from Python (docs/python.md, "Tables"): the
same result as the command line, the tables it writes, verify() on tables.

Needs the throwaway cluster of tests/postgres/cluster.sh, which ctest starts
(the `postgres` fixture) and names in DEID_PG_STATE; skipped without it.
"""
import json
import os
import subprocess
from pathlib import Path

import pandas as pd
import pytest

import deid
from conftest import ADULT, run_cli, write_yaml_job

COLUMNS = ['sex', 'age', 'race', '"marital-status"', 'education', '"native-country"', 'workclass', 'occupation',
           '"salary-class"']


@pytest.fixture(scope="module")
def cluster():
    state = os.environ.get("DEID_PG_STATE")
    if not state or not os.path.exists(state):
        pytest.skip("no PostgreSQL test cluster (run through ctest, which starts tests/postgres/cluster.sh)")
    directory = Path(state).read_text().strip()
    if directory == "skip":
        pytest.skip("DEID_SKIP_POSTGRES_TESTS=1")
    return f"host={directory} port=5432 user=deid dbname=postgres"


def psql(conninfo, sql, stdin=None):
    p = subprocess.run(["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", conninfo, "-c", sql],
                       input=stdin, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return p.stdout


def table_rows(conninfo, table):
    """The rows of a table, sorted (a table has no order)."""
    text = psql(conninfo, f'COPY "{table}" TO STDOUT (FORMAT csv)')
    return sorted(text.splitlines())


@pytest.fixture(scope="module")
def adult_table(cluster):
    """examples/adult/adult.csv as a table with its line numbers."""
    name = f"adult_py_{os.getpid()}"
    psql(cluster, f'DROP TABLE IF EXISTS "{name}"; CREATE TABLE "{name}" (line serial, sex text, age integer, '
                  'race text, "marital-status" text, education text, "native-country" text, workclass text, '
                  'occupation text, "salary-class" text)')
    psql(cluster, f'COPY "{name}" ({", ".join(COLUMNS)}) FROM STDIN (FORMAT csv, HEADER true, DELIMITER \';\')',
         stdin=(ADULT / "adult.csv").read_text())
    return name


def table_job(conninfo, source, output=None, pushdown=True):
    """k-anonymity on adult, read from `source` in the file's order."""
    h = ADULT / "hierarchies"
    job = {
        "input": {"postgres": {"connection": conninfo, "pushdown": pushdown,
                               "query": f'SELECT {", ".join(COLUMNS)} FROM "{source}" ORDER BY line'}},
        "attributes": {q: {"role": "quasi-identifying", "hierarchy": str(h / f"{q}.csv")}
                       for q in ["age", "education", "marital-status", "sex", "workclass"]},
        "default-role": "insensitive",
        "privacy": [{"k-anonymity": {"k": 5}}, {"l-diversity": {"attribute": "occupation", "l": 2}}],
        "suppression-limit": 0.05,
        "output": {},
    }
    job["attributes"]["occupation"] = {"role": "sensitive"}
    if output:
        job["output"]["postgres"] = {"table": output, "mode": "replace"}
    return job


def comparable(info):
    """A result without what differs between two runs (times, memory)."""
    info = json.loads(json.dumps(info))
    info.pop("time_ms", None)
    info.pop("peak_rss_bytes", None)
    info["search"].pop("time_to_best_ms", None)
    return info


def cli_result(cli, tmp_path, job):
    job = json.loads(json.dumps(job))
    job["output"]["result"] = str(tmp_path / "cli.json")
    p = run_cli(cli, "anonymize", write_yaml_job(job, tmp_path / "job.yaml"))
    assert p.returncode == 0, p.stderr
    return json.loads((tmp_path / "cli.json").read_text())


@pytest.mark.parametrize("pushdown", [True, False])
def test_table_to_table_as_the_command(cli, cluster, adult_table, tmp_path, pushdown):
    out = f"released_py_{os.getpid()}_{int(pushdown)}"
    job = table_job(cluster, adult_table, out, pushdown)
    expected = cli_result(cli, tmp_path, job)
    cli_rows = table_rows(cluster, out)

    r = deid.anonymize(None, job)
    assert r.found
    assert comparable(r.info) == comparable(expected)
    assert table_rows(cluster, out) == cli_rows
    if pushdown:
        assert r.info["files"][1]["pushdown"] == "database"
        with pytest.raises(ValueError, match="pushdown"):
            r.data
    else:
        assert len(r.data) == 30162
    v = r.verify()
    assert v["valid"], v
    assert {c["check"]: c["status"] for c in v["checks"]}["sha256 input"] == ("skipped" if pushdown else "ok")
    # deid.verify on the job reads the same tables.
    assert deid.verify(write_yaml_job(job, tmp_path / "job.yaml"), result=tmp_path / "cli.json")["valid"]


def test_table_to_dataframe(cli, cluster, adult_table, tmp_path):
    """Without an output table the rows are streamed, as with pushdown: false:
    the released DataFrame and its CSV are the command's."""
    job = table_job(cluster, adult_table)
    cli_job = table_job(cluster, adult_table, pushdown=False)
    cli_job["output"]["path"] = str(tmp_path / "cli.csv")
    expected = cli_result(cli, tmp_path, cli_job)

    r = deid.anonymize(None, job)
    got, want = comparable(r.info), comparable(expected)
    assert got.pop("files")[0] == want.pop("files")[0]  # the input table's digest
    assert got == want
    r.to_csv(tmp_path / "py.csv")
    assert (tmp_path / "py.csv").read_bytes() == (tmp_path / "cli.csv").read_bytes()
    assert r.data.shape == (30162, 9)
    assert r.verify()["valid"]


def test_csv_to_table(cli, cluster, tmp_path):
    out = f"released_csv_py_{os.getpid()}"
    job = table_job(cluster, "unused", out)
    job["input"] = {"path": str(ADULT / "adult.csv"), "delimiter": ";"}
    job["output"]["postgres"]["connection"] = cluster
    expected = cli_result(cli, tmp_path, job)
    cli_rows = table_rows(cluster, out)

    r = deid.anonymize(None, job)
    assert comparable(r.info) == comparable(expected)
    assert table_rows(cluster, out) == cli_rows
    assert r.data.shape == (30162, 9)
    assert r.verify()["valid"]


def test_verify_finds_a_tampered_table(cluster, adult_table, tmp_path):
    out = f"tampered_py_{os.getpid()}"
    job = table_job(cluster, adult_table, out)
    r = deid.anonymize(None, job)
    assert r.verify()["valid"]
    psql(cluster, f'UPDATE "{out}" SET workclass = \'Private\' WHERE ctid = '
                  f'(SELECT ctid FROM "{out}" WHERE workclass NOT IN (\'*\', \'Private\') LIMIT 1)')
    v = r.verify()
    assert not v["valid"]
    failed = [c for c in v["checks"] if c["status"] == "FAILED"]
    assert failed[0]["check"] == "generalization" and failed[0]["column"] == "workclass", failed


def test_risk_and_suppress_of_a_table(cluster, adult_table, adult_frame):
    job = table_job(cluster, adult_table)
    frame_job = dict(job, input={"path": str(ADULT / "adult.csv"), "delimiter": ";"})
    assert deid.risk(None, job).info["sample_risk"] == deid.risk(adult_frame, frame_job).info["sample_risk"]


def test_password_never_shown(cluster, adult_table, tmp_path):
    secret = "Py-Secret-93af"
    out = f"pw_py_{os.getpid()}"
    job = table_job(cluster + f" password={secret}", adult_table, out)
    r = deid.anonymize(None, job)
    assert secret not in json.dumps(r.info) and secret not in r.summary() and secret not in r.report_html()
    assert secret not in json.dumps(r.verify())
    job["input"]["postgres"]["connection"] = cluster.replace("host=", "host=/nowhere") + f" password={secret}"
    job["output"]["postgres"]["connection"] = job["input"]["postgres"]["connection"]
    with pytest.raises(deid.InputError) as e:
        deid.anonymize(None, job)
    assert "cannot connect" in str(e.value) and secret not in str(e.value)
    with pytest.raises(deid.InputError) as e:
        deid.verify(job)
    assert "cannot connect" in str(e.value) and secret not in str(e.value)


def test_data_replaces_the_input_table(cluster, adult_table, adult_frame, tmp_path):
    """A DataFrame or CSV given as data is the input, also for verify()."""
    out = f"unwritten_py_{os.getpid()}"
    job = table_job(cluster, adult_table, out)
    r = deid.anonymize(adult_frame[[c.strip('"') for c in COLUMNS]], job)
    assert "files" not in r.info
    assert r.verify()["valid"]
    assert psql(cluster, f"SELECT to_regclass('\"{out}\"') IS NULL").strip() == "t"  # nothing written
    csv = tmp_path / "adult.csv"
    adult_frame.to_csv(csv, index=False)
    assert deid.anonymize(str(csv), job).verify()["valid"]
