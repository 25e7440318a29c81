#!/usr/bin/env python3
# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""The bundled example (examples/adult.yaml) from Python: the adult census
table as a pandas DataFrame, 5-anonymity, the released DataFrame, the risk
before and after, and the report. Run from anywhere with the Python of the
virtual environment the package is installed in (pip install ., docs/python.md):

    python examples/python/adult.py [OUT_DIR]

Writes OUT_DIR/adult-deid.csv (the released table, the same bytes as
`deid anonymize examples/adult.yaml` writes), OUT_DIR/adult-deid.html (the
report) and OUT_DIR/adult-deid.json (the result); OUT_DIR defaults to out/.
"""
import sys
from pathlib import Path

import pandas as pd

import deid

HERE = Path(__file__).resolve().parent
ADULT = HERE.parent / "adult"
out = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE.parent.parent / "out"
out.mkdir(parents=True, exist_ok=True)

# The data as an analyst has it: a DataFrame (age is read as integers).
df = pd.read_csv(ADULT / "adult.csv", sep=";")

# The job of examples/adult.yaml as a dict (no 'input': the data is given).
hierarchies = ADULT / "hierarchies"
job = {
    "attributes": {name: {"role": "quasi-identifying", "hierarchy": str(hierarchies / f"{name}.csv")}
                   for name in ["age", "education", "marital-status", "native-country", "race", "salary-class",
                                "sex", "workclass", "occupation"]},
    "default-role": "insensitive",
    "privacy": [{"k-anonymity": {"k": 5}}],
    "suppression-limit": 0.05,
    "quality": {"model": "loss", "aggregate": "geometric-mean", "gs-factor": 0.5},
    # A DataFrame has no delimiter: the CSV written is ','-separated unless
    # told otherwise. The adult file is ';'-separated.
    "output": {"delimiter": ";"},
}
# A hierarchy may also be given in memory: here age's, as a DataFrame in
# ARX's layout (it could be built with deid.hierarchy.intervals).
age = pd.read_csv(hierarchies / "age.csv", sep=";", header=None, dtype=str, keep_default_na=False)

result = deid.anonymize(df, job, hierarchies={"age": age}, progress=True)
print(result.summary())
print()
print("Released table (first rows):")
print(result.data.head().to_string())
print()
print("Best solutions the search checked:")
print(result.best_solutions.head(5).to_string())
print()
print("Largest classes:")
print(result.classes.head(5).to_string())

# Risk is measured over the job's quasi-identifiers, on any table.
before = deid.risk(df, job)
after = deid.risk(result.data, job)
print()
print(f"Highest prosecutor risk: {before.info['sample_risk']['highest_risk']:.3f} before, "
      f"{after.info['sample_risk']['highest_risk']:.3f} after")

# The independent verifier re-checks the release (docs/verify.md): the run
# in memory is written to a temporary directory and read back by it.
report = result.verify()
print(f"Verified         {'valid' if report['valid'] else 'NOT VALID'} ({len(report['checks'])} checks)")

result.to_csv(out / "adult-deid.csv")
result.save_report(out / "adult-deid.html")
result.save_result(out / "adult-deid.json")
print(f"Output           {out / 'adult-deid.csv'}")
print(f"Report           {out / 'adult-deid.html'}")
print(f"Result           {out / 'adult-deid.json'}")
