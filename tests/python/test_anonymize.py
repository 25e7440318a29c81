# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""deid.anonymize gives ARX's answers and the command line's, byte for byte."""
import html
import json

import pandas as pd
import pytest

import deid
from conftest import ADULT, EXAMPLES, adult_job, arx_runs, run_cli, write_yaml_job

RUNS = arx_runs()


@pytest.mark.parametrize("run", RUNS, ids=[r["name"] for r in RUNS])
def test_arx_reference_runs_from_a_dataframe(run, adult_frame):
    """Every ARX reference run on adult (the numbers of
    tests/integration/arx_kanonymity_test.cc) through Python."""
    r = deid.anonymize(adult_frame, adult_job(run))
    assert r.found and r.optimal
    assert abs(r.information_loss - run["information_loss"]) <= 1e-8 * abs(run["information_loss"])
    levels = [r.transformation[q] for q in run["quasi_identifiers"]]
    assert levels == run["optimum_levels"]
    if run["quality_model"] == "loss":
        assert r.suppressed_records == run["suppressed_records"]
        assert r.info["classes"] == run["output_classes"]["num_classes"]
        assert r.info["smallest_class_size"] == run["output_classes"]["min_size"]
        for name, value in run["information_loss_per_qi"].items():
            assert r.info["information_loss_per_attribute"][name] == pytest.approx(value, abs=1e-9)


# A few jobs of each kind: the result and the released table equal the CLI's.
SAME_AS_CLI = [r for r in RUNS if r["name"] in (
    "adult_k5_loss", "adult_k2_loss_s1", "adult_k5_ldist3_occ", "adult_k5_tord02_age", "adult_dankar001",
    "adult_k5_entropy")]

COMPARED_KEYS = ["records", "quasi_identifiers", "quality_model", "privacy_models", "suppression_limit_records",
                 "solution_found", "transformation", "information_loss", "information_loss_per_attribute",
                 "suppressed_records", "classes", "smallest_class_size", "largest_class_size",
                 "average_class_size", "optimal", "warnings"]


@pytest.mark.parametrize("run", SAME_AS_CLI, ids=[r["name"] for r in SAME_AS_CLI])
def test_dataframe_path_csv_path_and_cli_agree(run, adult_frame, cli, tmp_path):
    job = adult_job(run)
    job_file = write_yaml_job(job, tmp_path / "job.yaml")
    run_cli(cli, "anonymize", job_file, "--output", tmp_path / "cli.csv", "--result", tmp_path / "cli.json")
    expected = json.loads((tmp_path / "cli.json").read_text())
    from_frame = deid.anonymize(adult_frame, job)
    from_csv = deid.anonymize(str(ADULT / "adult.csv"), job_file)
    for r in (from_frame, from_csv):
        for key in COMPARED_KEYS:
            assert r.info[key] == expected[key], key
        s, e = r.info["search"], expected["search"]
        for key in ("algorithm", "transformations_checked", "lattice_size", "best_solutions"):
            assert s[key] == e[key], key
    from_frame.to_csv(tmp_path / "frame.csv")
    from_csv.to_csv(tmp_path / "csv.csv")
    cli_bytes = (tmp_path / "cli.csv").read_bytes()
    assert (tmp_path / "frame.csv").read_bytes() == cli_bytes
    assert (tmp_path / "csv.csv").read_bytes() == cli_bytes
    # The released DataFrames equal the CLI's CSV read back.
    back = pd.read_csv(tmp_path / "cli.csv", sep=";", dtype=str, keep_default_na=False)
    for r in (from_frame, from_csv):
        released = r.data.astype(str)
        assert list(released.columns) == list(back.columns)
        pd.testing.assert_frame_equal(released.reset_index(drop=True), back, check_dtype=False)


def test_released_frame_keeps_index_order_and_drops_identifying(adult_frame):
    frame = adult_frame.copy()
    frame.index = pd.Index([f"p{i}" for i in range(len(frame))], name="person")
    frame.insert(0, "id", range(len(frame)))
    job = adult_job(RUNS[0] | {"privacy_models": ["k=5"], "suppression_limit": 0.05})
    job["attributes"]["id"] = {"role": "identifying"}
    r = deid.anonymize(frame, job)
    assert r.data.index.equals(frame.index)
    assert list(r.data.columns) == [c for c in frame.columns if c != "id"]
    # Quasi-identifiers are released; suppressed records are '*' in every one.
    suppressed = r.data["age"] == "*"
    assert suppressed.sum() == r.suppressed_records
    qis = r.info["quasi_identifiers"]
    assert (r.data.loc[suppressed, qis] == "*").all().all()


def test_result_accessors(adult_frame, tmp_path):
    r = deid.anonymize(adult_frame, EXAMPLES / "adult.yaml")
    assert r.transformation["age"] == 3
    assert r.best_solutions.iloc[0]["information_loss"] == r.information_loss
    assert list(r.best_solutions.columns[-2:]) == ["information_loss", "suppressed_records"]
    classes = r.classes
    assert classes.loc[~classes["suppressed"], "size"].sum() == r.info["records"] - r.suppressed_records
    assert (~classes["suppressed"]).sum() == r.info["classes"]
    assert "Transformation" in repr(r) and "<table>" in r._repr_html_()
    r.save_report(tmp_path / "r.html")
    assert "<svg" in (tmp_path / "r.html").read_text()
    r.save_result(tmp_path / "r.json")
    assert json.loads((tmp_path / "r.json").read_text())["information_loss"] == r.information_loss


def test_frontier_and_releasing_one_of_its_points(adult_frame):
    run = next(x for x in arx_runs() if x["name"] == "adult_k5_loss_arith")
    job = adult_job(run)
    r = deid.anonymize(adult_frame, job)
    f = r.frontier
    assert len(f) == r.info["search"]["frontier_size"] >= 2
    assert f.iloc[0]["information_loss"] == r.information_loss
    assert f["information_loss"].is_monotonic_increasing and f["average_risk"].is_monotonic_decreasing
    # The last point of the frontier, released directly, gives its figures.
    point = f.iloc[-1]
    qis = r.info["quasi_identifiers"]
    job["search"] = {"transformation": {q: int(point[q]) for q in qis}}
    g = deid.anonymize(adult_frame, job)
    assert g.info["search"]["algorithm"] == "given" and not g.optimal
    assert g.transformation == {q: int(point[q]) for q in qis}
    assert g.information_loss == point["information_loss"]
    assert g.suppressed_records == point["suppressed_records"]


def test_no_solution_is_a_result_not_an_error(adult_frame):
    job = adult_job(RUNS[0] | {"privacy_models": ["k=40000"], "suppression_limit": 0.0})
    r = deid.anonymize(adult_frame, job)
    assert not r.found and r.data is None and r.transformation is None
    with pytest.raises(ValueError, match="no transformation"):
        r.to_csv("never-written.csv")


def test_job_as_yaml_text_without_input(adult_frame):
    text = (EXAMPLES / "adult.yaml").read_text().replace("adult/hierarchies", str(ADULT / "hierarchies"))
    text = text.replace("input:\n  path: adult/adult.csv\n  delimiter: \";\"\n", "")
    r = deid.anonymize(adult_frame, text)
    assert r.transformation["age"] == 3 and r.optimal


def test_threads_do_not_change_the_answer(adult_frame):
    one = deid.anonymize(adult_frame, EXAMPLES / "adult.yaml", threads=1)
    two = deid.anonymize(adult_frame, EXAMPLES / "adult.yaml", threads=2)
    assert one.info["transformation"] == two.info["transformation"]
    assert one.info["search"]["transformations_checked"] == two.info["search"]["transformations_checked"]
    with pytest.raises(ValueError, match="threads"):
        deid.anonymize(adult_frame, EXAMPLES / "adult.yaml", threads=0)


def test_outputs_never_overwrite_an_input(tmp_path):
    data = tmp_path / "adult.csv"
    data.write_bytes((ADULT / "adult.csv").read_bytes())
    r = deid.anonymize(data, EXAMPLES / "adult.yaml")
    with pytest.raises(deid.InputError, match="input"):
        r.to_csv(data)
    assert data.read_bytes() == (ADULT / "adult.csv").read_bytes()
    with pytest.raises(deid.InputError):
        r.save_report(ADULT / "hierarchies" / "age.csv")


def test_every_save_refuses_a_file_the_job_reads(tmp_path):
    # A copy of the example project: the job names its hierarchies, which no
    # save of any result may replace (the result JSON, the risk JSON and
    # report, the suppression's table and result).
    project = tmp_path / "adult"
    project.mkdir()
    (project / "hierarchies").mkdir()
    for f in (ADULT / "hierarchies").iterdir():
        (project / "hierarchies" / f.name).write_bytes(f.read_bytes())
    (project / "adult.csv").write_bytes((ADULT / "adult.csv").read_bytes())
    job = (EXAMPLES / "adult.yaml").read_text().replace("adult/", "")
    (project / "job.yaml").write_text(job)
    hierarchy = project / "hierarchies" / "age.csv"
    before = hierarchy.read_bytes()
    r = deid.anonymize(None, project / "job.yaml")
    for save in (r.save_result, r.save_report, r.to_csv):
        with pytest.raises(deid.InputError, match="hierarchy of 'age'"):
            save(hierarchy)
    risk = deid.risk(None, project / "job.yaml")
    for save in (risk.save_json, risk.save_report):
        with pytest.raises(deid.InputError, match="hierarchy of 'age'"):
            save(hierarchy)
    assert hierarchy.read_bytes() == before
    r.save_result(project / "result.json")
    assert json.loads((project / "result.json").read_text())["records"] == r.info["records"]


@pytest.mark.parametrize("escape", [False, True])
def test_formula_cells_as_the_cli_writes_them(escape, cli, tmp_path):
    frame = pd.DataFrame({"zip": ["81675", "81677", "81679", "81675"] * 5,
                          "note": ["=1+2", "plain", "-5", "@x"] * 5})
    job = {"attributes": {"zip": {"role": "quasi-identifying", "hierarchy": {"type": "masking"}}},
           "default-role": "insensitive", "privacy": [{"k-anonymity": {"k": 2}}],
           "output": {"escape-formulas": escape}}
    frame.to_csv(tmp_path / "in.csv", index=False)
    job_file = write_yaml_job(job | {"input": {"path": str(tmp_path / "in.csv")}}, tmp_path / "job.yaml")
    run_cli(cli, "anonymize", job_file, "--output", tmp_path / "cli.csv", "--result", tmp_path / "cli.json")
    r = deid.anonymize(frame, job)
    r.to_csv(tmp_path / "py.csv")
    assert (tmp_path / "py.csv").read_bytes() == (tmp_path / "cli.csv").read_bytes()
    assert r.info["warnings"] == json.loads((tmp_path / "cli.json").read_text())["warnings"]
    back = pd.read_csv(tmp_path / "cli.csv", dtype=str, keep_default_na=False)
    pd.testing.assert_frame_equal(r.data.astype(str), back, check_dtype=False)


def test_outputs_name_no_input_value_the_release_removed(adult_frame, tmp_path):
    """What the package writes and shows for a release (result, report,
    summaries, the risk and the utility of the released table) holds no
    input value of a quasi-identifier that no released cell shows
    (docs/reliability.md, "What travels with a release"; the command line's
    outputs: tests/integration/no_leak_test.cc)."""
    import re
    r = deid.anonymize(adult_frame, EXAMPLES / "adult.yaml")
    r.save_result(tmp_path / "r.json")
    r.save_report(tmp_path / "r.html")
    released = r.data
    risk = deid.risk(released, EXAMPLES / "adult.yaml")
    assert risk.info["custodian_only"] is False
    assert deid.risk(None, EXAMPLES / "adult.yaml").info["custodian_only"] is True
    shown = {str(v) for c in released.columns for v in released[c].unique()}
    hierarchy_labels = set()
    for h in (ADULT / "hierarchies").glob("*.csv"):
        for line in h.read_text().splitlines():
            hierarchy_labels.update(line.split(";")[1:])
    candidates = set()
    for q in r.transformation:
        for v in adult_frame[q].astype(str).unique():
            if len(v) >= 3 and v not in shown and v not in hierarchy_labels:
                candidates.add(v)
    # A candidate inside a label shown ("South" in "South America") is no leak.
    candidates = {c for c in candidates
                  if not any(re.search(r"(?<![A-Za-z0-9])" + re.escape(c) + r"(?![A-Za-z0-9])", s)
                             for s in shown | hierarchy_labels)}
    assert {"Bachelors", "Married-AF-spouse", "United-States"} <= candidates
    texts = {
        "result": (tmp_path / "r.json").read_text(),
        "report": html.unescape((tmp_path / "r.html").read_text()),
        "summary": r.summary() + repr(r) + r._repr_html_(),
        "risk": json.dumps(risk.info) + risk.text + html.unescape(risk.report_html()),
    }
    for name, text in texts.items():
        found = sorted(c for c in candidates
                       if re.search(r"(?<![A-Za-z0-9])" + re.escape(c) + r"(?![A-Za-z0-9])", text))
        assert found == [], f"{name} names {found}"
