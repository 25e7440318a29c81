# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""Errors, progress, interrupts and runs in two threads at once."""
import os
import re
import signal
import threading
import time

import numpy as np
import pytest

import deid
from conftest import ADULT, EXAMPLES, run_cli, write_yaml_job

ADULT_YAML = EXAMPLES / "adult.yaml"


def exhaustive_text():
    """The adult job searched exhaustively (about 1.5 s): long enough to interrupt."""
    text = ADULT_YAML.read_text().replace("algorithm: auto", "algorithm: exhaustive")
    return text.replace("adult/", str(ADULT) + "/").replace("../out/", "")


# --- errors --------------------------------------------------------------------

def test_error_classes():
    assert issubclass(deid.JobError, deid.InputError)
    assert issubclass(deid.InputError, ValueError)
    assert issubclass(deid.InternalError, RuntimeError)


def cli_error(cli, *args):
    p = run_cli(cli, *args, check=False)
    assert p.returncode == 2, p.stderr
    assert p.stderr.startswith("deid: error: ")
    return p.stderr[len("deid: error: "):].strip()


@pytest.mark.parametrize("change, kind", [
    (("quality:\n  model: loss", "quality:\n  model: loss\n  gs_factor: 1"), deid.JobError),
    (("k: 5", "k: 0"), deid.JobError),
    (("occupation:     {role: quasi-identifying, hierarchy: adult/hierarchies/occupation.csv}",
      "occupation:     {role: quasi-identifying, hierarchy: adult/hierarchies/occupation.csv}\n  height: "
      "{role: insensitive}"), deid.JobError),
    (("adult/hierarchies/sex.csv", "adult/hierarchies/race.csv"), deid.InputError),
    (("adult/hierarchies/sex.csv", "adult/hierarchies/nonexistent.csv"), deid.InputError),
])
def test_errors_carry_the_cli_messages(change, kind, cli, tmp_path):
    text = ADULT_YAML.read_text().replace(*change).replace("adult/", str(ADULT) + "/")
    job = tmp_path / "job.yaml"
    job.write_text(text.replace("../out/", str(tmp_path) + "/"))
    expected = cli_error(cli, "anonymize", job)
    with pytest.raises(kind) as e:
        deid.anonymize(None, job)
    assert str(e.value) == expected
    # The same from a job dict or YAML text: the same problem is named.
    with pytest.raises(kind) as e2:
        deid.anonymize(None, job.read_text())
    assert expected.split(": ")[-1] in str(e2.value)


def test_a_dataframe_names_itself_and_the_csv_line(adult_frame):
    frame = adult_frame.copy()
    frame.loc[3, "sex"] = "Other"
    with pytest.raises(deid.InputError) as e:
        deid.anonymize(frame, ADULT_YAML)
    # Row 3 is line 5 of the CSV pandas writes (header on line 1).
    assert str(e.value).startswith("DataFrame:5 (column 'sex'):")
    assert "'Other'" in str(e.value)


def test_type_errors(adult_frame):
    with pytest.raises(TypeError):
        deid.anonymize([1, 2], ADULT_YAML)
    with pytest.raises(TypeError):
        deid.anonymize(adult_frame, 42)
    with pytest.raises(TypeError):
        deid.anonymize(adult_frame, ADULT_YAML, hierarchies={"age": 3.5})
    with pytest.raises(TypeError):
        deid.anonymize(adult_frame, ADULT_YAML, progress="yes")


# --- progress and interrupts ---------------------------------------------------

def test_progress_callable_receives_phases_and_search_updates(adult_frame):
    updates = []
    deid.anonymize(adult_frame, exhaustive_text(), progress=updates.append)
    phases = [u.phase for u in updates]
    assert phases[0] == "encoding" and "search" in phases
    search = [u for u in updates if u.checked is not None]
    assert search and all(0 <= u.fraction_done <= 1 for u in search)
    assert [u.checked for u in search] == sorted(u.checked for u in search)


def test_progress_bar_without_and_with_tqdm(adult_frame, capsys, monkeypatch):
    import builtins
    real_import = builtins.__import__

    def no_tqdm(name, *args, **kwargs):
        if name.startswith("tqdm"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_tqdm)
    r = deid.anonymize(adult_frame, exhaustive_text(), progress=True)
    monkeypatch.undo()
    assert r.found
    assert "deid: search" in capsys.readouterr().err
    r = deid.anonymize(adult_frame, exhaustive_text(), progress=True)
    assert r.found


def test_an_error_in_the_progress_callable_stops_the_run(adult_frame):
    def fail(update):
        if update.checked:
            raise ZeroDivisionError("from the callback")
    with pytest.raises(ZeroDivisionError, match="from the callback"):
        deid.anonymize(adult_frame, exhaustive_text(), progress=fail)


@pytest.mark.parametrize("threads", [None, 1])
def test_ctrl_c_interrupts_the_search(adult_frame, threads):
    timer = threading.Timer(0.4, os.kill, (os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            deid.anonymize(adult_frame, exhaustive_text(), threads=threads)
    finally:
        timer.cancel()
    # Stopped within about 100 ms of the signal, not at the end of the search.
    assert time.monotonic() - start < 1.0
    # The library is left whole: the next run gives the answer.
    assert deid.anonymize(adult_frame, exhaustive_text()).transformation["age"] == 3


# --- two runs at once ------------------------------------------------------------

def test_two_searches_in_two_threads_at_once(adult_frame):
    k10 = exhaustive_text().replace("k: 5", "k: 10")
    expected = [deid.anonymize(adult_frame, exhaustive_text()).info, deid.anonymize(adult_frame, k10).info]
    results = [None, None]

    def run(i, job):
        results[i] = deid.anonymize(adult_frame, job).info

    threads = [threading.Thread(target=run, args=(0, exhaustive_text())), threading.Thread(target=run, args=(1, k10))]
    ticks = 0
    for t in threads:
        t.start()
    # The searches release the GIL: this thread keeps running Python meanwhile.
    while any(t.is_alive() for t in threads):
        ticks += 1
        time.sleep(0.01)
    for t in threads:
        t.join()
    assert ticks > 20
    for got, want in zip(results, expected):
        for key in ("transformation", "information_loss", "suppressed_records", "classes"):
            assert got[key] == want[key]
        assert got["search"]["transformations_checked"] == want["search"]["transformations_checked"]


# --- risk, suppress, verify --------------------------------------------------------

def test_risk_equals_the_cli(adult_frame, cli, tmp_path):
    run_cli(cli, "risk", ADULT_YAML, "--json", tmp_path / "risk.json")
    import json
    expected = json.loads((tmp_path / "risk.json").read_text())
    assert expected["custodian_only"] is True  # the job's input
    for data in (adult_frame, None):
        r = deid.risk(data, ADULT_YAML)
        got = dict(r.info)
        # A frame passed in is not known to be the job's input: only
        # data=None (the job's input) is labelled custodian-only.
        assert got.pop("custodian_only") is (data is None)
        for d in (got, expected):
            d.pop("input", None)
        assert got == {k: v for k, v in expected.items() if k not in ("input", "custodian_only")}
    assert "Prosecutor" in r.text or "prosecutor" in r.text
    assert len(r.profile) > 0 and len(r.populations) == 3 and r.class_sizes["classes"].sum() == r.info["classes"]
    deid.risk(None, ADULT_YAML).save_json(tmp_path / "py-risk.json")
    assert (tmp_path / "py-risk.json").read_bytes() == (tmp_path / "risk.json").read_bytes()
    r.save_report(tmp_path / "risk.html")
    assert "<svg" in (tmp_path / "risk.html").read_text()


def test_risk_of_a_released_table(adult_frame):
    released = deid.anonymize(adult_frame, ADULT_YAML)
    r = deid.risk(released.data, ADULT_YAML)
    assert r.info["suppressed_records"] == released.suppressed_records
    assert r.info["sample_risk"]["highest_risk"] <= 1 / 5


def test_suppress_equals_the_cli(cli, tmp_path):
    import pandas as pd
    # The example job, its outputs in tmp_path (a job file's paths are
    # relative to it, so the copy sits beside the original's data).
    text = (EXAMPLES / "discharge" / "discharge.yaml").read_text().replace("../../out/", str(tmp_path) + "/")
    job = EXAMPLES / "discharge" / f".test-{os.getpid()}.yaml"
    job.write_text(text)
    try:
        check_suppress(cli, job, tmp_path)
    finally:
        job.unlink()


def check_suppress(cli, job, tmp_path):
    import json
    import pandas as pd
    run_cli(cli, "suppress", job, "--output", tmp_path / "cli.csv", "--result", tmp_path / "cli.json")
    expected = json.loads((tmp_path / "cli.json").read_text())
    back = pd.read_csv(tmp_path / "cli.csv", dtype=str, keep_default_na=False)
    as_text = pd.read_csv(EXAMPLES / "discharge" / "discharge.csv", dtype=str, keep_default_na=False)
    # pandas' own dtypes (los as int64) and an index of its own.
    typed = pd.read_csv(EXAMPLES / "discharge" / "discharge.csv", keep_default_na=False)
    typed.index = pd.RangeIndex(100, 100 + len(typed), name="row")
    for data in (as_text, typed, None):
        s = deid.suppress(data, job)
        s.to_csv(tmp_path / "py.csv")
        assert (tmp_path / "py.csv").read_bytes() == (tmp_path / "cli.csv").read_bytes()
        for key in ("k", "records", "combinations", "released_columns", "information_loss"):
            assert s.info[key] == expected[key], key
        # The released DataFrame is built as anonymize's: the input's index,
        # the CLI's columns in its order, released columns as categoricals,
        # copied columns the input's own arrays; its text is the CLI's table.
        released = s.data
        assert list(released.columns) == list(back.columns)
        if data is None:
            assert released.index.equals(pd.RangeIndex(len(back)))
        else:
            assert released.index.equals(data.index)
        for name in expected["released_columns"]:
            assert isinstance(released[name].dtype, pd.CategoricalDtype), name
        if data is not None:
            # The input's own array: the same object (pandas 3's Arrow-backed
            # strings), or a view of the same NumPy buffer (object columns).
            a, b = released["discharge"].array, data["discharge"].array
            assert a is b or np.shares_memory(np.asarray(a), np.asarray(b))
        pd.testing.assert_frame_equal(released.astype(str).reset_index(drop=True), back)
        # Samples: the rows drawn, as the sample files of the CLI read back.
        samples = s.samples
        assert len(samples) == 2 and all(len(x) == 500 for x in samples)
        for frame, text in zip(samples, s.samples_csv()):
            import io
            pd.testing.assert_frame_equal(frame.astype(str).reset_index(drop=True),
                                          pd.read_csv(io.BytesIO(text), dtype=str, keep_default_na=False))
            assert frame.index.isin(released.index).all()
    assert s.data.shape[0] == 5000 and s.suppressed_cells > 0
    # The in-memory run verifies; a count it does not hold fails.
    for data in (as_text, typed, None):
        s = deid.suppress(data, job)
        report = s.verify()
        assert report["valid"], report
    s.info["information_loss"]["suppressed_cells"] += 1
    assert not s.verify()["valid"]


def test_verify_a_release(adult_frame, cli, tmp_path):
    r = deid.anonymize(None, ADULT_YAML)
    r.to_csv(tmp_path / "out.csv")
    report = deid.verify(ADULT_YAML, output=tmp_path / "out.csv")
    assert report["valid"], report
    run_cli(cli, "verify", ADULT_YAML, "--output", tmp_path / "out.csv", "--json", tmp_path / "v.json")
    import json
    assert report == json.loads((tmp_path / "v.json").read_text())
    # A broken release fails a check (not an exception).
    text = (tmp_path / "out.csv").read_text().splitlines()
    (tmp_path / "bad.csv").write_text("\n".join(text[:-30]) + "\n")
    assert not deid.verify(ADULT_YAML, output=tmp_path / "bad.csv")["valid"]


# --- line numbers of YAML jobs with hierarchies= ------------------------------------

@pytest.mark.parametrize("change, line", [(("k: 5", "k: 0"), 19), (("gs-factor: 0.5", "gs_factor: 0.5"), 24)])
def test_a_yaml_job_with_hierarchies_keeps_its_own_lines_in_errors(change, line, adult_frame, cli, tmp_path):
    import pandas as pd
    text = ADULT_YAML.read_text().replace(*change).replace("adult/", str(ADULT) + "/").replace("../out/", "")
    job = tmp_path / "job.yaml"
    job.write_text(text)
    expected = cli_error(cli, "anonymize", job)
    assert expected.startswith(f"{job}:{line}:"), expected
    age = pd.read_csv(ADULT / "hierarchies" / "age.csv", sep=";", header=None, dtype=str, keep_default_na=False)
    for given in ({"age": age}, {"age": ADULT / "hierarchies" / "age.csv"}, {"age": {"type": "masking"}}):
        with pytest.raises(deid.JobError) as e:
            deid.anonymize(adult_frame, job, hierarchies=given)
        assert str(e.value) == expected
        with pytest.raises(deid.JobError) as e:
            deid.anonymize(adult_frame, text, hierarchies=given)
        assert str(e.value) == expected.replace(str(job), "<job text>")


def test_hierarchies_given_beside_a_yaml_job_are_checked_with_their_own_names(adult_frame):
    text = exhaustive_text()
    # A builder with a bad parameter is named as hierarchies['...'], not as a line of the job.
    with pytest.raises(deid.JobError, match=r"^hierarchies\['age'\]:\d+:\d+: .*widths"):
        deid.anonymize(adult_frame, text, hierarchies={"age": {"type": "intervals", "min": 0, "max": 100,
                                                               "widths": []}})
    # A hierarchy for an attribute whose role takes none: the line of its role in the job.
    with pytest.raises(deid.JobError, match=r"^<job text>:\d+:\d+: attribute 'age': hierarchies\['age'\] gives"):
        deid.anonymize(adult_frame, re.sub(r"age: +\{[^}]*\}", "age: {role: insensitive}", text),
                       hierarchies={"age": ADULT / "hierarchies" / "age.csv"})
    # A column the job does not list becomes quasi-identifying.
    r = deid.anonymize(adult_frame, text, hierarchies={"sex": {"Male": ["*"], "Female": ["*"]}})
    assert r.found and "sex" in r.transformation


# --- in-memory verification --------------------------------------------------------

def test_verify_an_in_memory_run(adult_frame, cli, tmp_path):
    import json
    import pandas as pd
    age = pd.read_csv(ADULT / "hierarchies" / "age.csv", sep=";", header=None, dtype=str, keep_default_na=False)
    for data, given in ((adult_frame, None), (None, None), (adult_frame, {"age": age}),
                        (adult_frame, {"age": {"type": "intervals", "min": 0, "max": 100, "widths": [5, 10, 20]}})):
        r = deid.anonymize(data, ADULT_YAML, hierarchies=given)
        report = r.verify()
        assert report["valid"], report
        status = {c["check"]: c["status"] for c in report["checks"]}
        assert status["k-anonymity (k=5)"] == status["generalization"] == status["result counts"] == "ok", report
    # The same checks as deid verify on the files of the CLI's run.
    r = deid.anonymize(adult_frame, ADULT_YAML)
    r.to_csv(tmp_path / "out.csv")
    run_cli(cli, "verify", ADULT_YAML, "--output", tmp_path / "out.csv", "--json", tmp_path / "v.json")
    files = json.loads((tmp_path / "v.json").read_text())
    statuses = lambda rep: {c["check"]: c["status"] for c in rep["checks"] if c["check"] != "sha256"}  # noqa: E731
    assert {k: v for k, v in statuses(r.verify()).items() if k in statuses(files)} == statuses(files)


def test_verify_fails_a_tampered_in_memory_run(adult_frame):
    r = deid.anonymize(adult_frame, ADULT_YAML)
    assert r.verify()["valid"]
    # One released record put back to its original values breaks k-anonymity.
    run = r._run
    real_write = run.write_csv

    class Tampered:
        def __getattr__(self, name):
            return getattr(run, name)

        def write_csv(self, path):
            real_write(path)
            lines = open(path, encoding="utf-8").read().splitlines()
            lines[1] = ";".join(str(v) for v in adult_frame.iloc[0])
            open(path, "w", encoding="utf-8").write("\n".join(lines) + "\n")
    r._run = Tampered()
    report = r.verify()
    assert not report["valid"]
    assert any(c["status"] == "FAILED" for c in report["checks"])
    # A count in the result that does not match the table fails too.
    r2 = deid.anonymize(adult_frame, ADULT_YAML)
    r2.info["suppressed_records"] += 1
    assert not r2.verify()["valid"]
