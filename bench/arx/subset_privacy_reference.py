#!/usr/bin/env python3
"""Produces tests/testdata/reference/arx-subset-privacy.json: ARX 3.9.2 runs of the privacy models that
read a global distribution or the class sizes (t-closeness, delta-disclosure, beta-likeness, average
risk, sample and population uniqueness) with a research subset, through bench/arx/ArxRun.java --subset.
The subset is every tenth record of the data from the fourth (records i with i % 10 == 3), written to
a table of records as ArxRun's --subset takes it. Runs on cup need the cup data (CUP_DIR, with cup.csv
and hierarchies/); without it they are left out.

    javac -nowarn -cp ARX_JAR -d /tmp/arxc bench/arx/ArxRun.java
    python3 bench/arx/subset_privacy_reference.py ARX_JAR /tmp/arxc [CUP_DIR] > tests/testdata/reference/arx-subset-privacy.json
    ONLY=NAME python3 bench/arx/subset_privacy_reference.py ...     # that run only
"""
import hashlib
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ARX_JAR, CLASSES = sys.argv[1], sys.argv[2]
DIRS = {"adult": os.path.join(ROOT, "examples", "adult"), "cup": sys.argv[3] if len(sys.argv) > 3 else None}
QIS = {"adult": ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "occupation",
                 "salary-class"],
       "cup": ["ZIP", "AGE", "GENDER", "INCOME", "MINRAMNT", "NGIFTALL", "STATE", "RAMNTALL"]}
OH = os.path.join(DIRS["adult"], "hierarchies", "occupation.csv")


def qis(ds, sensitive):
    return [q for q in QIS[ds] if q != sensitive]


def subset_file(ds, tmp):
    path = os.path.join(tmp, ds + "-subset.csv")
    lines = open(os.path.join(DIRS[ds], ds + ".csv")).read().splitlines()
    open(path, "w").write("\n".join([lines[0]] + [l for i, l in enumerate(lines[1:]) if i % 10 == 3]) + "\n")
    return path


# name, dataset, sensitive attribute, privacy (as in the job file), ArxRun's options, suppression limit
RUNS = [
  ('adult_subset_teq02_occ', 'adult', 'occupation', [{'t-closeness': {'attribute': 'occupation', 'distance': 'equal', 't': 0.2}}], ['--tclose', 'occupation', 'equal', '0.2'], 0.05),
  ('adult_subset_thier02_occ', 'adult', 'occupation', [{'t-closeness': {'attribute': 'occupation', 'distance': 'hierarchical', 't': 0.2}}], ['--tclose', 'occupation', 'hierarchical', '0.2', '--sensitive-hierarchy', 'occupation', OH], 0.05),
  ('adult_subset_k5_tord02_age', 'adult', 'age', [{'k-anonymity': {'k': 5}}, {'t-closeness': {'attribute': 'age', 'distance': 'ordered', 't': 0.2}}], ['--k', '5', '--tclose', 'age', 'ordered', '0.2'], 0.05),
  ('adult_subset_tord01_age_s0', 'adult', 'age', [{'t-closeness': {'attribute': 'age', 'distance': 'ordered', 't': 0.1}}], ['--tclose', 'age', 'ordered', '0.1'], 0.0),
  ('adult_subset_ddisc2_occ', 'adult', 'occupation', [{'delta-disclosure': {'attribute': 'occupation', 'delta': 2}}], ['--ddisclosure', 'occupation', '2'], 0.05),
  ('adult_subset_k5_ddisc15_occ', 'adult', 'occupation', [{'k-anonymity': {'k': 5}}, {'delta-disclosure': {'attribute': 'occupation', 'delta': 1.5}}], ['--k', '5', '--ddisclosure', 'occupation', '1.5'], 0.1),
  ('adult_subset_bbasic1_occ', 'adult', 'occupation', [{'beta-likeness': {'attribute': 'occupation', 'variant': 'basic', 'beta': 1}}], ['--blikeness', 'occupation', 'basic', '1'], 0.05),
  ('adult_subset_k5_benh05_occ', 'adult', 'occupation', [{'k-anonymity': {'k': 5}}, {'beta-likeness': {'attribute': 'occupation', 'variant': 'enhanced', 'beta': 0.5}}], ['--k', '5', '--blikeness', 'occupation', 'enhanced', '0.5'], 0.05),
  ('adult_subset_dpresence_teq03_occ', 'adult', 'occupation', [{'delta-presence': {'min': 0.0, 'max': 0.2}}, {'t-closeness': {'attribute': 'occupation', 'distance': 'equal', 't': 0.3}}], ['--dpresence', '0', '0.2', '--tclose', 'occupation', 'equal', '0.3'], 0.05),
  ('adult_subset_avgrisk01_s5', 'adult', None, [{'average-risk': {'threshold': 0.1}}], ['--avg-risk', '0.1', '-', '-'], 0.05),
  ('adult_subset_avgrisk005_h01_r0_s10', 'adult', None, [{'average-risk': {'threshold': 0.05, 'highest-risk': 0.1, 'records-at-risk': 0.0}}], ['--avg-risk', '0.05', '0.1', '0'], 0.1),
  ('adult_subset_sampleuniq001_s5', 'adult', None, [{'sample-uniqueness': {'threshold': 0.01}}], ['--sample-uniqueness', '0.01'], 0.05),
  ('adult_subset_k3_sampleuniq0_s2', 'adult', None, [{'k-anonymity': {'k': 3}}, {'sample-uniqueness': {'threshold': 0.0}}], ['--k', '3', '--sample-uniqueness', '0'], 0.02),
  ('adult_subset_pu_dankar001', 'adult', None, [{'population-uniqueness': {'threshold': 0.01, 'population-size': 318900000, 'estimator': 'dankar'}}], ['--pu', '0.01', '318900000', 'dankar'], 1.0),
  ('adult_subset_pu_zayatz001', 'adult', None, [{'population-uniqueness': {'threshold': 0.01, 'population-size': 318900000, 'estimator': 'zayatz'}}], ['--pu', '0.01', '318900000', 'zayatz'], 1.0),
  ('adult_subset_dpresence_avgrisk005', 'adult', None, [{'delta-presence': {'min': 0.0, 'max': 0.3}}, {'average-risk': {'threshold': 0.05}}], ['--dpresence', '0', '0.3', '--avg-risk', '0.05', '-', '-'], 0.05),
  # k-map with an estimator derives k' from the whole input's size (KMap.initialize), not the subset's.
  ('adult_subset_kmap3_p100k', 'adult', None, [{'k-map': {'k': 3, 'population-size': 100000, 'significance': 0.01}}], ['--kmap', '3', '0.01', '100000', 'poisson'], 0.05),
  ('cup_subset_avgrisk01_s5', 'cup', None, [{'average-risk': {'threshold': 0.1}}], ['--avg-risk', '0.1', '-', '-'], 0.05),
  ('cup_subset_k5_benh1_income', 'cup', 'INCOME', [{'k-anonymity': {'k': 5}}, {'beta-likeness': {'attribute': 'INCOME', 'variant': 'enhanced', 'beta': 1}}], ['--k', '5', '--blikeness', 'INCOME', 'enhanced', '1'], 0.05),
]

out = []
with tempfile.TemporaryDirectory() as tmp:
    for name, ds, sens, privacy, arx, supp in RUNS:
        if os.environ.get("ONLY") and name != os.environ["ONLY"]:
            continue
        if DIRS[ds] is None or not os.path.isdir(DIRS[ds]):
            continue
        released = os.path.join(tmp, name + ".csv")
        args = ["java", "-Xmx4g", "-cp", ARX_JAR + os.pathsep + CLASSES, "ArxRun",
                "--data", os.path.join(DIRS[ds], ds + ".csv"), "--delimiter", ";"]
        for q in qis(ds, sens):
            args += ["--qi", q, os.path.join(DIRS[ds], "hierarchies", q + ".csv")]
        if sens:
            args += ["--sensitive", sens]
        args += arx + ["--subset", subset_file(ds, tmp), "--suppression", str(supp),
                       "--runs", "1", "--warmup", "0", "--output", released]
        r = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
        sha = hashlib.sha256(open(released, "rb").read()).hexdigest() if r["solution_found"] else None
        run = {"name": name, "dataset": ds, "quasi_identifiers": qis(ds, sens), "sensitive": sens,
               "subset": "every tenth record from the fourth (records i with i % 10 == 3)",
               "privacy": privacy, "suppression_limit": supp, "quality": {"model": "loss"},
               "arx_privacy_models": r["privacy_models"], "arx_quality_model": r["quality_model"],
               "solution_found": r["solution_found"], "optimum": r.get("transformation"),
               "information_loss": r.get("information_loss"), "suppressed_records": r.get("suppressed_records"),
               "lattice_size": r["lattice_size"], "arx_transformations_checked": r["checks"], "output_sha256": sha}
        if supp == 0:
            # ARX suppresses nothing in a release with limit 0, not even the records outside the subset.
            run["arx_releases_records_outside_subset"] = True
            run["note"] = ("suppression limit 0: ARX does not suppress the records outside the subset in its "
                           "release (TransformationApplicator calls performSuppression only with a limit above "
                           "0), so suppressed_records is 0 and output_sha256 is of a table that shows them; the "
                           "subset's 3016 released rows equal deid's")
        print(name, r.get("transformation"), r.get("information_loss"), r.get("suppressed_records"), file=sys.stderr)
        out.append(run)
json.dump({"tool": "ARX 3.9.2", "note": "privacy models with a research subset (ARX DataSubset): generated with "
           "bench/arx/ArxRun.java --subset", "runs": out}, sys.stdout, indent=1)
