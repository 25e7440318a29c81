# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""The package as pip installs it: metadata, type stubs, the `deid` command
and `python -m deid` (the C++ tool shipped inside the package). Run on the
installed package (scripts/test.sh sets DEID_TEST_INSTALLED=1)."""
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

import deid
from deid._cli import executable

from conftest import EXAMPLES, ROOT

installed = pytest.mark.skipif(os.environ.get("DEID_TEST_INSTALLED") != "1",
                               reason="the package of a build tree, not an installed one")


@installed
def test_imported_from_site_packages_not_the_source_tree():
    package = Path(deid.__file__).resolve().parent
    assert ROOT / "python" not in package.parents
    assert package.name == "deid" and "site-packages" in package.parts


@installed
def test_metadata_stubs_and_entry_point():
    assert metadata.version("deid") == deid.__version__
    files = {str(f) for f in metadata.files("deid")}
    assert {"deid/py.typed", "deid/__init__.pyi", "deid/hierarchy.pyi", "deid/_bin/deid"} <= files
    eps = metadata.entry_points()
    console = eps.select(group="console_scripts") if hasattr(eps, "select") else eps.get("console_scripts", [])  # 3.9
    scripts = [e for e in console if e.name == "deid"]
    assert [e.value for e in scripts] == ["deid._cli:main"]
    assert Path(sys.executable).with_name("deid").exists()


@pytest.mark.parametrize("launcher", [[sys.executable, "-m", "deid"], ["deid-entry-point"]])
def test_python_m_deid_is_the_cli(launcher, tmp_path):
    if launcher == ["deid-entry-point"]:
        script = Path(sys.executable).with_name("deid")
        if not script.exists():
            pytest.skip("no deid entry point beside this interpreter (not installed by pip)")
        launcher = [str(script)]
    tool = executable()
    direct = subprocess.run(["deid", "--help"], executable=tool, capture_output=True, text=True)
    via = subprocess.run([*launcher, "--help"], capture_output=True, text=True)
    assert via.returncode == direct.returncode == 0
    assert via.stdout == direct.stdout and "anonymize" in via.stdout
    out = tmp_path / "out.csv"
    run = subprocess.run([*launcher, "anonymize", str(EXAMPLES / "adult.yaml"), "-q", "--output", str(out),
                          "--result", str(tmp_path / "r.json"), "--report", str(tmp_path / "r.html")],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert out.stat().st_size > 0
    bad = subprocess.run([*launcher, "anonymize", str(tmp_path / "missing.yaml")], capture_output=True, text=True)
    assert bad.returncode == 2 and "missing.yaml" in bad.stderr


def test_works_without_pyarrow(tmp_path):
    # pyarrow is optional ('.[arrow]'): a DataFrame of numpy dtypes, risk
    # and the CSV output never import it. `sys.modules["pyarrow"] = None`
    # makes every `import pyarrow` fail as if it were not installed.
    out = tmp_path / "adult-deid.csv"
    script = f"""
import sys
sys.modules["pyarrow"] = None
import pandas as pd
import deid
df = pd.read_csv({str(EXAMPLES / "adult" / "adult.csv")!r}, sep=";")
result = deid.anonymize(df, {str(EXAMPLES / "adult.yaml")!r})
result.to_csv({str(out)!r})
print(deid.risk(result.data, {str(EXAMPLES / "adult.yaml")!r}).info["sample_risk"]["highest_risk"])
"""
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert float(run.stdout) == 0.2
    cli = tmp_path / "cli.csv"
    # Every output in tmp_path: the job's own go to out/, which a fresh clone
    # does not have.
    subprocess.run([sys.executable, "-m", "deid", "anonymize", str(EXAMPLES / "adult.yaml"), "-q",
                    "--output", str(cli), "--result", str(tmp_path / "cli.json"),
                    "--report", str(tmp_path / "cli.html")], check=True, cwd=tmp_path)
    assert out.read_bytes() == cli.read_bytes()
