# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""Local recoding through the Python package (docs/python.md, docs/search.md
"Local recoding"): the released DataFrame, CSV, classes and result are the
command's, and the release of ARX's reference runs is ARX's."""
import hashlib
import json

import pandas as pd
import pytest

import deid
from conftest import ADULT, REFERENCE, run_cli, write_yaml_job

QIS = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "occupation",
       "salary-class"]
REFERENCE_RUNS = {r["name"]: r for r in json.loads((REFERENCE / "arx-local-recoding.json").read_text())["runs"]}
# Four of the runs (tests/unit/local_recoding_test.cc runs all 71, ties among a pass's optima included).
NAMES = ["adult_k2_s0.05_single_gs0", "adult_k5_s0.05_iterative_gs0.5_it100_a0.05",
         "adult_distinct_l3_s0.05_iterative_gs0.5_it100_a0.05",
         "adult_k5_s0.05_iterative_gs0.05_it100_a0.05_q_precision"]


def job_of(run, column=None):
    """The job of an ARX reference run (tests/unit/local_recoding_test.cc builds the same)."""
    sensitive = run["model"] != "k"
    attributes = {}
    for q in QIS:
        if sensitive and q == "occupation":
            attributes[q] = {"role": "sensitive"}
        else:
            attributes[q] = {"role": "quasi-identifying", "hierarchy": str(ADULT / "hierarchies" / f"{q}.csv")}
    if run["model"] == "k":
        privacy = [{"k-anonymity": {"k": run["k"]}}]
    else:
        privacy = [{"l-diversity": {"attribute": "occupation", "variant": "distinct", "l": run["l"]}}]
    if "microaggregation" in run:  # age microaggregated, generalized before or not
        micro = run["microaggregation"]
        age = {"role": "quasi-identifying", "transformation": "microaggregation", "function": micro["function"]}
        if micro["generalize_before"]:
            age.update({"generalize-before": True, "hierarchy": str(ADULT / "hierarchies" / "age.csv")})
        attributes["age"] = age
    lr = {"mode": run["mode"], "gs-factor": run["gs_factor"]}
    for key in ("max_iterations", "adaption_factor", "records"):
        if key in run:
            lr[key.replace("_", "-")] = run[key]
    if column:
        lr["column"] = column
    return {"input": {"path": str(ADULT / "adult.csv"), "delimiter": ";"}, "attributes": attributes,
            "privacy": privacy, "suppression-limit": run["suppression_limit"],
            "quality": run.get("quality", {"model": "loss"}),
            "output": {"utility": False}, "local-recoding": lr}


@pytest.mark.parametrize("name", NAMES)
def test_release_is_the_commands_and_arxs(name, adult_frame, cli, tmp_path):
    run = REFERENCE_RUNS[name]
    job = job_of(run)
    job_file = write_yaml_job(job, tmp_path / "job.yaml")
    run_cli(cli, "anonymize", job_file, "--output", tmp_path / "cli.csv", "--result", tmp_path / "cli.json")
    expected = json.loads((tmp_path / "cli.json").read_text())
    r = deid.anonymize(adult_frame, job)
    assert r.local_recoding == expected["local_recoding"]
    assert len(r.local_recoding["passes"]) == len(run["passes"])
    assert r.info["information_loss"] == expected["information_loss"]
    r.to_csv(tmp_path / "frame.csv")
    cli_bytes = (tmp_path / "cli.csv").read_bytes()
    assert (tmp_path / "frame.csv").read_bytes() == cli_bytes
    assert hashlib.sha256(cli_bytes).hexdigest() == run["release_sha256"]
    back = pd.read_csv(tmp_path / "cli.csv", sep=";", dtype=str, keep_default_na=False)
    pd.testing.assert_frame_equal(r.data.astype(str).reset_index(drop=True), back, check_dtype=False)
    # The classes are those of the released values: every class kept has
    # at least k records, the suppressed records are one class of "*".
    classes = r.classes
    assert classes["size"].sum() == len(adult_frame)
    kept = classes[~classes["suppressed"]]
    released = back[[q for q in QIS if job["attributes"][q]["role"] == "quasi-identifying"]]
    assert len(kept) == len(released[(released != "*").any(axis=1)].drop_duplicates())
    if run["model"] == "k":
        assert kept["size"].min() >= run["k"]
    suppressed = classes[classes["suppressed"]]
    assert len(suppressed) <= 1
    assert suppressed["size"].sum() == r.local_recoding["starred_records"]
    assert len(kept) == r.local_recoding["classes"]
    assert kept["size"].min() == r.local_recoding["smallest_class_size"]
    assert r.verify()["valid"]


@pytest.mark.parametrize("name", ["adult_k5_s0.05_iterative_gs0.05_it100_a0.05_micro_age_mean",
                                  "adult_k5_s0.05_single_gs0.5_micro_age_interval_generalized"])
@pytest.mark.parametrize("local", [True, False])
def test_microaggregated_values_are_the_commands(name, local, adult_frame, cli, tmp_path):
    """The frame shows each class's aggregate (a later pass's for its records),
    never the input's values: the command's table, and with local recoding
    ARX's."""
    run = REFERENCE_RUNS[name]
    job = job_of(run)
    if not local:
        del job["local-recoding"]
    job_file = write_yaml_job(job, tmp_path / "job.yaml")
    run_cli(cli, "anonymize", job_file, "--output", tmp_path / "cli.csv", "--result", tmp_path / "cli.json")
    r = deid.anonymize(adult_frame, job)
    r.to_csv(tmp_path / "frame.csv")
    cli_bytes = (tmp_path / "cli.csv").read_bytes()
    assert (tmp_path / "frame.csv").read_bytes() == cli_bytes
    back = pd.read_csv(tmp_path / "cli.csv", sep=";", dtype=str, keep_default_na=False)
    pd.testing.assert_frame_equal(r.data.astype(str).reset_index(drop=True), back, check_dtype=False)
    released = set(back["age"])
    # Each released age is an aggregate: an interval, or a mean (fewer than
    # the input's 72 ages).
    if name.endswith("_generalized"):
        assert all(v == "*" or v.startswith("[") for v in released)
    else:
        assert len(released) < len(set(adult_frame["age"].astype(str)))
    if local:
        assert hashlib.sha256(cli_bytes).hexdigest() == run["release_sha256"]
    assert r.verify()["valid"]


def test_the_pass_column_as_the_command_writes_it(adult_frame, cli, tmp_path):
    job = job_of(REFERENCE_RUNS["adult_k5_s0.05_iterative_gs0.5_it100_a0.05"], column="pass")
    job_file = write_yaml_job(job, tmp_path / "job.yaml")
    run_cli(cli, "anonymize", job_file, "--output", tmp_path / "cli.csv", "--result", tmp_path / "cli.json")
    r = deid.anonymize(adult_frame, job)
    back = pd.read_csv(tmp_path / "cli.csv", sep=";", dtype=str, keep_default_na=False)
    assert list(r.data.columns) == list(back.columns) and back.columns[-1] == "pass"
    assert set(back["pass"]) == {"0", "1", "2", "*"}
    pd.testing.assert_frame_equal(r.data.astype(str).reset_index(drop=True), back, check_dtype=False)
    assert r.to_arrow().column_names[-1] == "pass"
    r.to_csv(tmp_path / "frame.csv")
    assert (tmp_path / "frame.csv").read_bytes() == (tmp_path / "cli.csv").read_bytes()


def test_the_report_shows_the_passes(adult_frame, cli, tmp_path):
    job = job_of(REFERENCE_RUNS["adult_k5_s0.05_iterative_gs0.5_it100_a0.05"])
    r = deid.anonymize(adult_frame, job)
    page = r.report_html()
    assert "<h2>Local recoding</h2>" in page
    lr = r.local_recoding
    assert f"The release: {lr['classes']} classes, the smallest of {lr['smallest_class_size']} records." in page
    # The command's report of the same job shows the same passes and classes.
    job["output"]["report"] = str(tmp_path / "cli.html")
    run_cli(cli, "anonymize", write_yaml_job(job, tmp_path / "job.yaml"), "--output", tmp_path / "cli.csv")
    r.save_report(tmp_path / "py.html")

    def sections(page, first="<h2>Local recoding</h2>"):
        return page[page.index(first):page.index("</body>")]
    assert sections((tmp_path / "py.html").read_text()) == sections((tmp_path / "cli.html").read_text())
