# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""Fixtures of the Python package's tests (docs/python.md).

Run by scripts/test.sh on the package installed from the wheel into a
virtual environment, or through ctest on the package of a CMake build
(PYTHONPATH naming it). The answers are compared with those of the
command-line tool DEID_CLI, by default the one installed with the package.
"""
import json
import os
import subprocess
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
ADULT = EXAMPLES / "adult"
REFERENCE = ROOT / "tests" / "testdata" / "reference"


@pytest.fixture(scope="session")
def cli():
    path = os.environ.get("DEID_CLI")
    if path is None:
        from deid._cli import executable
        path = executable()
    if not os.path.exists(path):
        pytest.skip(f"no deid command at {path} (set DEID_CLI)")
    return path


def run_cli(cli, *args, check=True):
    p = subprocess.run([cli, "-q", *map(str, args)], capture_output=True, text=True)
    if check and p.returncode not in (0, 1):
        raise AssertionError(f"deid {' '.join(map(str, args))}: exit {p.returncode}: {p.stderr}")
    return p


@pytest.fixture(scope="session")
def adult_frame():
    """The adult table as pandas reads it (age as int64, the rest strings)."""
    return pd.read_csv(ADULT / "adult.csv", sep=";")


def adult_job(run):
    """The job of one ARX reference run (tests/testdata/reference/arx-adult.json)
    as a dict, as tests/support builds it in C++."""
    attributes = {q: {"role": "quasi-identifying", "hierarchy": str(ADULT / "hierarchies" / f"{q}.csv")}
                  for q in run["quasi_identifiers"]}
    sensitive = run["sensitive"]
    if sensitive:
        attributes[sensitive] = {"role": "sensitive", "hierarchy": str(ADULT / "hierarchies" / f"{sensitive}.csv")}
    privacy = []
    for m in run["privacy_models"]:
        kind, arg = m.split("=", 1)
        if kind == "k":
            privacy.append({"k-anonymity": {"k": int(arg)}})
        elif kind.startswith("ldiv-"):
            variant = kind[len("ldiv-"):]
            spec = {"attribute": sensitive, "variant": variant}
            if variant == "recursive":
                c, l = arg.split(",")
                spec.update(c=float(c), l=float(l))
            else:
                spec["l"] = float(arg)
            privacy.append({"l-diversity": spec})
        elif kind.startswith("tclose-"):
            distance = {"ordered": "ordered", "equal": "equal", "hier": "hierarchical"}[kind[len("tclose-"):]]
            privacy.append({"t-closeness": {"attribute": sensitive, "distance": distance, "t": float(arg)}})
        else:
            privacy.append({"population-uniqueness": {"threshold": float(arg), "estimator": kind,
                                                      "population-size": run["population_size"]}})
    quality = {"model": run["quality_model"]}
    aggregate = {"Geometric mean": "geometric-mean", "Arithmetric mean": "arithmetic-mean",
                 "Arithmetic mean": "arithmetic-mean", "Sum": "sum", "Maximum": "max"}.get(run["aggregate"])
    if aggregate:
        quality["aggregate"] = aggregate
    if run["quality_model"] == "loss":
        quality["gs-factor"] = run["gs_factor"]
    return {
        "input": {"path": str(ADULT / "adult.csv"), "delimiter": ";"},
        "attributes": attributes,
        "default-role": "insensitive",
        "privacy": privacy,
        "suppression-limit": run["suppression_limit"],
        "quality": quality,
    }


def arx_runs():
    with open(REFERENCE / "arx-adult.json") as f:
        return json.load(f)["runs"]


def write_yaml_job(job, path):
    """A job dict as a job file (JSON is YAML)."""
    Path(path).write_text(json.dumps(job, indent=1))
    return path
