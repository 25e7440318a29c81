#!/usr/bin/env python3
"""Produces tests/testdata/reference/arx-subset-microaggregation.json: ARX 3.9.2 runs on adult with age
microaggregated (DataDefinition.setMicroAggregationFunction) and a research subset, through
bench/arx/ArxRun.java --microaggregate and --subset. The subset is every tenth record of the data from the
fourth (records i with i % 10 == 3), written to a table of records as ArxRun's --subset takes it; the
other eight columns are quasi-identifiers with their hierarchies (age too when generalized before).

    javac -nowarn -cp ARX_JAR -d /tmp/arxc bench/arx/ArxRun.java
    python3 bench/arx/subset_microaggregation_reference.py ARX_JAR /tmp/arxc ONLY_RUN... > tests/testdata/reference/arx-subset-microaggregation.json

(names of runs after /tmp/arxc: only those, for checking one)
"""
import hashlib
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ARX_JAR, CLASSES = sys.argv[1], sys.argv[2]
ADULT = os.path.join(ROOT, "examples", "adult")
OTHERS = ["sex", "race", "marital-status", "education", "native-country", "workclass", "occupation", "salary-class"]
SUBSET = "every tenth record from the fourth (records i with i % 10 == 3)"


def subset_file(tmp):
    path = os.path.join(tmp, "adult-subset.csv")
    lines = open(os.path.join(ADULT, "adult.csv")).read().splitlines()
    open(path, "w").write("\n".join([lines[0]] + [l for i, l in enumerate(lines[1:]) if i % 10 == 3]) + "\n")
    return path


# name, k, age's function, generalized before, quality (as in the job file), ArxRun's quality options, limit
RUNS = [
  ('adult_subset_k5_age_mean', 5, 'mean', False, {'model': 'loss'}, ['--quality', 'loss'], 0.05),
  ('adult_subset_k5_age_mean_generalized_before', 5, 'mean', True, {'model': 'loss'}, ['--quality', 'loss'], 0.05),
  ('adult_subset_k5_age_median', 5, 'median', False, {'model': 'loss'}, ['--quality', 'loss'], 0.05),
  ('adult_subset_k3_age_interval_arithmetic_s10', 3, 'interval', False, {'model': 'loss', 'aggregate': 'arithmetic-mean'},
   ['--quality', 'loss', '--aggregate', 'arithmetic-mean'], 0.1),
  ('adult_subset_k5_age_geometric_mean_precision', 5, 'geometric-mean', False, {'model': 'precision'},
   ['--quality', 'precision'], 0.05),
  ('adult_subset_k5_age_median_generalized_before_s0', 5, 'median', True, {'model': 'loss'}, ['--quality', 'loss'], 0.0),
  ('adult_subset_k2_age_mean_generalized_before_max2', 2, 'mean', True, {'model': 'loss'},
   ['--quality', 'loss', '--max-level', 'age', '2'], 0.05),
]
# Keys of age in the job file beyond its function (ArxRun's options are in the run's own list).
AGE_KEYS = {'adult_subset_k2_age_mean_generalized_before_max2': {'max-level': 2}}

def matched_rows():
    """The input rows of the subset: each subset record matched to the first input row with the same values
    that no earlier record matched (ARX's DataSubset.create), in input order. A record of a row i % 10 == 3
    can match an earlier equal row."""
    lines = open(os.path.join(ADULT, "adult.csv")).read().splitlines()[1:]
    occurrences, used = {}, {}
    for i, l in enumerate(lines):
        occurrences.setdefault(l, []).append(i)
    rows = []
    for i, l in enumerate(lines):
        if i % 10 == 3:
            rows.append(occurrences[l][used.get(l, 0)])
            used[l] = used.get(l, 0) + 1
    return sorted(rows)


MATCHED = matched_rows()
out = []
with tempfile.TemporaryDirectory() as tmp:
    subset = subset_file(tmp)
    for name, k, function, before, quality, arx, supp in RUNS:
        if len(sys.argv) > 3 and name not in sys.argv[3:]:
            continue
        released = os.path.join(tmp, name + ".csv")
        qis = OTHERS + (["age"] if before else [])
        args = ["java", "-Xmx4g", "-cp", ARX_JAR + os.pathsep + CLASSES, "ArxRun",
                "--data", os.path.join(ADULT, "adult.csv"), "--delimiter", ";"]
        for q in qis:
            args += ["--qi", q, os.path.join(ADULT, "hierarchies", q + ".csv")]
        args += ["--microaggregate", "age", function, "true" if before else "false", "--k", str(k)] + arx
        args += ["--subset", subset, "--suppression", str(supp), "--runs", "1", "--warmup", "0", "--output", released]
        r = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
        sha = hashlib.sha256(open(released, "rb").read()).hexdigest() if r["solution_found"] else None
        # The header and the subset's rows of the release (what deid's release shows as ARX's also with limit 0).
        rows = open(released, "rb").read().split(b"\n") if r["solution_found"] else None
        subset_sha = (hashlib.sha256(b"".join(rows[i] + b"\n" for i in [0] + [m + 1 for m in MATCHED])).hexdigest()
                      if rows else None)
        age = {"transformation": "microaggregation", "function": function}
        if before:
            age["generalize-before"] = True
        age.update(AGE_KEYS.get(name, {}))
        run = {"name": name, "dataset": "adult", "quasi_identifiers": qis, "sensitive": None,
               "attributes": {"age": age}, "subset": SUBSET, "privacy": [{"k-anonymity": {"k": k}}],
               "suppression_limit": supp, "quality": quality,
               "arx_privacy_models": r["privacy_models"], "arx_quality_model": r["quality_model"],
               "solution_found": r["solution_found"], "optimum": r.get("transformation"),
               "information_loss": r.get("information_loss"), "suppressed_records": r.get("suppressed_records"),
               "lattice_size": r["lattice_size"], "arx_transformations_checked": r["checks"], "output_sha256": sha,
               "output_subset_rows_sha256": subset_sha,
               "released_age": r.get("microaggregated", {}).get("age")}
        if supp == 0:
            # ARX suppresses nothing in a release with limit 0, not even the records outside the subset.
            run["arx_releases_records_outside_subset"] = True
            run["note"] = ("suppression limit 0: ARX does not suppress the records outside the subset in its "
                           "release (TransformationApplicator calls performSuppression only with a limit above "
                           "0), so suppressed_records is 0 and output_sha256 is of a table that shows them; "
                           "their age is not their class's aggregate (HashGroupify.performMicroaggregation "
                           "skips them: most show the first aggregate ARX wrote, code 0 of its dictionary). "
                           "output_subset_rows_sha256, of the header and the subset's rows (its records "
                           "matched as DataSubset.create does), is deid's")
        print(name, r.get("transformation"), r.get("information_loss"), r.get("suppressed_records"), file=sys.stderr)
        out.append(run)
json.dump({"tool": "ARX 3.9.2", "note": "adult with age microaggregated (ARX DataDefinition."
           "setMicroAggregationFunction, data type INTEGER) and a research subset (ARX DataSubset): generated "
           "with bench/arx/ArxRun.java --microaggregate --subset; released_age: the SHA-256 of the released age "
           "column in row order joined by newlines, and its values with their counts", "runs": out},
          sys.stdout, indent=1)
