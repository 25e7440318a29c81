#!/usr/bin/env python3
"""Produces tests/testdata/reference/arx-differential-privacy.json: ARX 3.9.2 runs of
(epsilon, delta)-differential privacy (EDDifferentialPrivacy in deterministic mode) on examples/adult (and on
cup from ../shared/data/cup, for the runs whose name starts with cup_),
through bench/arx/ArxRun.java (--dp, --dp-budget, --dp-steps, --dp-generalization, --output), alone and
combined with other privacy models (judged on the sample, ARX's research subset).

    javac -nowarn -cp ARX_JAR -d /tmp/arxc bench/arx/ArxRun.java
    python3 bench/arx/dp_reference.py ARX_JAR /tmp/arxc > tests/testdata/reference/arx-differential-privacy.json
    python3 bench/arx/dp_reference.py ARX_JAR /tmp/arxc --only NAME     # one run's entry
"""
import hashlib
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ADULT = os.path.join(ROOT, "examples", "adult")
CUP = os.path.join(ROOT, "..", "shared", "data", "cup")
CUP_ALL = ["ZIP", "AGE", "GENDER", "INCOME", "STATE", "RAMNTALL", "NGIFTALL", "MINRAMNT"]
ALL = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "occupation",
       "salary-class"]

# name, quasi-identifiers, the model's settings (as in the job file), quality model (a name, or the job
# file's quality section)[, the other privacy models: (the job file's entries, ArxRun's options, the sensitive
# attribute or None)]
OCC8 = [q for q in ALL if q != "occupation"]
RUNS = [
    ("dd_loss_e2_d1e-6", ALL, {"epsilon": 2.0, "delta": 1e-6}, "loss"),
    ("dd_loss_e1_d1e-5", ALL, {"epsilon": 1.0, "delta": 1e-5}, "loss"),
    ("dd_loss_e3_d1e-4_b0.3_s300", ALL, {"epsilon": 3.0, "delta": 1e-4, "search-budget": 0.3, "steps": 300}, "loss"),
    ("dd_entropy_e2_d1e-6", ALL, {"epsilon": 2.0, "delta": 1e-6}, "entropy"),
    ("dd_discernability_e1.5_d1e-5", ALL, {"epsilon": 1.5, "delta": 1e-5}, "discernability"),
    ("dd_precision_e2_d1e-6_s50", ALL, {"epsilon": 2.0, "delta": 1e-6, "steps": 50}, "precision"),
    ("dd_aecs_e2_d1e-6", ALL, {"epsilon": 2.0, "delta": 1e-6}, "aecs"),
    ("dd_loss_4qi_e1_d1e-6", ["sex", "age", "race", "education"], {"epsilon": 1.0, "delta": 1e-6, "steps": 20}, "loss"),
    ("di_loss_e2_d1e-6", ALL, {"epsilon": 2.0, "delta": 1e-6, "generalization": {
        "sex": 0, "age": 2, "race": 0, "marital-status": 1, "education": 1, "native-country": 1, "workclass": 1,
        "occupation": 1, "salary-class": 1}}, "loss"),
    ("di_entropy_e1_d1e-5", ALL, {"epsilon": 1.0, "delta": 1e-5, "generalization": {
        "sex": 1, "age": 3, "race": 1, "marital-status": 2, "education": 2, "native-country": 2, "workclass": 1,
        "occupation": 2, "salary-class": 0}}, "entropy"),
    # The classification metric's score (MetricSDClassification.getScore): the response variable as a
    # quasi-identifier, and as an insensitive column beside eight quasi-identifiers.
    ("dd_classification_e2_d1e-6", ALL, {"epsilon": 2.0, "delta": 1e-6},
     {"model": "classification", "response-variables": ["salary-class"]}),
    ("dd_classification_8qi_e1_d1e-5", ALL[:-1], {"epsilon": 1.0, "delta": 1e-5, "steps": 50},
     {"model": "classification", "response-variables": ["salary-class"]}),
    # Differential privacy with other privacy models (ARXConfiguration.addPrivacyModel allows every model
    # without a research subset of its own): each judges the sample's records, and the score functions read
    # the classes that every model keeps (HashGroupifyEntry.isNotOutlier).
    ("dd_loss_e2_d1e-6_k200", ALL, {"epsilon": 2.0, "delta": 1e-6}, "loss",
     ([{"k-anonymity": {"k": 200}}], ["--k", "200"], None)),
    ("dd_loss_e2_d1e-6_ldistinct3_occ", OCC8, {"epsilon": 2.0, "delta": 1e-6}, "loss",
     ([{"l-diversity": {"attribute": "occupation", "variant": "distinct", "l": 3}}],
      ["--ldiv", "occupation", "distinct", "3", "-"], "occupation")),
    ("dd_entropy_e2_d1e-6_teq02_occ", OCC8, {"epsilon": 2.0, "delta": 1e-6}, "entropy",
     ([{"t-closeness": {"attribute": "occupation", "distance": "equal", "t": 0.2}}],
      ["--tclose", "occupation", "equal", "0.2"], "occupation")),
    ("dd_loss_e2_d1e-6_avgrisk001_h0004_r005", ALL, {"epsilon": 2.0, "delta": 1e-6}, "loss",
     ([{"average-risk": {"threshold": 0.01, "highest-risk": 0.004, "records-at-risk": 0.05}}],
      ["--avg-risk", "0.01", "0.004", "0.05"], None)),
    ("di_loss_e2_d1e-6_lentropy2_occ", OCC8, {"epsilon": 2.0, "delta": 1e-6, "generalization": {
        "sex": 0, "age": 2, "race": 0, "marital-status": 1, "education": 1, "native-country": 1, "workclass": 1,
        "salary-class": 1}}, "loss",
     ([{"l-diversity": {"attribute": "occupation", "variant": "entropy", "l": 2}}],
      ["--ldiv", "occupation", "entropy", "2", "-"], "occupation")),
    ("dd_aecs_e1_d1e-5_ddisc1_occ", OCC8, {"epsilon": 1.0, "delta": 1e-5}, "aecs",
     ([{"delta-disclosure": {"attribute": "occupation", "delta": 1.0}}],
      ["--ddisclosure", "occupation", "1.0"], "occupation")),
    ("dd_loss_e2_d1e-6_kmap500_p100k", ALL, {"epsilon": 2.0, "delta": 1e-6}, "loss",
     ([{"k-map": {"k": 500, "population-size": 100000, "significance": 0.01}}],
      ["--kmap", "500", "0.01", "100000", "poisson"], None)),
    ("dd_loss_e2_d1e-6_lrec3c4_occ", OCC8, {"epsilon": 2.0, "delta": 1e-6}, "loss",
     ([{"l-diversity": {"attribute": "occupation", "variant": "recursive", "l": 3, "c": 4}}],
      ["--ldiv", "occupation", "recursive", "3", "4"], "occupation")),
    ("dd_loss_e2_d1e-6_bbasic1_occ", OCC8, {"epsilon": 2.0, "delta": 1e-6}, "loss",
     ([{"beta-likeness": {"attribute": "occupation", "variant": "basic", "beta": 1}}],
      ["--blikeness", "occupation", "basic", "1"], "occupation")),
    ("dd_loss_e2_d1e-6_sampleuniq0", ALL, {"epsilon": 2.0, "delta": 1e-6}, "loss",
     ([{"sample-uniqueness": {"threshold": 0.0}}], ["--sample-uniqueness", "0"], None)),
    ("dd_loss_e2_d1e-6_pu_dankar001", ALL, {"epsilon": 2.0, "delta": 1e-6}, "loss",
     ([{"population-uniqueness": {"threshold": 0.01, "population-size": 318900000, "estimator": "dankar"}}],
      ["--pu", "0.01", "318900000", "dankar"], None)),
    ("dd_loss_e2_d1e-6_profitability_attack", ALL, {"epsilon": 2.0, "delta": 1e-6}, "loss",
     ([{"profitability": {"attack": True}}], ["--profitability", "attack"], None)),
    # cup (63,441 records, eight quasi-identifiers).
    ("cup_dd_loss_e2_d1e-6", CUP_ALL, {"epsilon": 2.0, "delta": 1e-6}, "loss"),
]


def main():
    jar, classes = sys.argv[1], sys.argv[2]
    only = sys.argv[4] if len(sys.argv) > 4 and sys.argv[3] == "--only" else None
    runs = []
    for name, qis, dp, quality, *rest in RUNS:
        if only and name != only:
            continue
        dataset = "cup" if name.startswith("cup_") else "adult"
        data_dir, data_file = (CUP, "cup.csv") if dataset == "cup" else (ADULT, "adult.csv")
        others, other_args, sensitive = rest[0] if rest else ([], [], None)
        quality = quality if isinstance(quality, dict) else {"model": quality}
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "out.csv")
            args = ["java", "-cp", jar + ":" + classes, "ArxRun", "--data", os.path.join(data_dir, data_file),
                    "--runs", "1", "--warmup", "0", "--quality", quality["model"], "--output", out,
                    "--dp", repr(dp["epsilon"]), repr(dp["delta"])]
            for r in quality.get("response-variables", []):
                args += ["--response", r]
            for q in qis:
                args += ["--qi", q, os.path.join(data_dir, "hierarchies", q + ".csv")]
            if "search-budget" in dp:
                args += ["--dp-budget", repr(dp["search-budget"])]
            if "steps" in dp:
                args += ["--dp-steps", str(dp["steps"])]
            for q, level in dp.get("generalization", {}).items():
                args += ["--dp-generalization", q, str(level)]
            if sensitive:
                args += ["--sensitive", sensitive]
            args += other_args
            arx = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
            with open(out, "rb") as f:
                sha = hashlib.sha256(f.read()).hexdigest()
        model = {"differential-privacy": dict(dp, seed="arx")}
        runs.append({
            "name": name,
            "dataset": dataset,
            "quasi_identifiers": qis,
            "sensitive": sensitive,
            "privacy": [model] + others,
            "suppression_limit": 1.0,
            "quality": quality,
            "arx_privacy_models": arx["privacy_models"],
            "arx_quality_model": arx["quality_model"],
            "k": arx["dp"]["k"],
            "beta": arx["dp"]["beta"],
            "sample_size": arx["dp"]["sample_size"],
            "sample_sha256": arx["dp"]["sample_sha256"],
            "solution_found": arx["solution_found"],
            "optimum": arx["transformation"],
            "score": arx["information_loss"] if "generalization" not in dp else None,
            "suppressed_records": arx["suppressed_records"],
            "lattice_size": arx["lattice_size"],
            "output_sha256": sha,
        })
    print(json.dumps({
        "tool": "ARX 3.9.2 (OpenJDK 17) through bench/arx/ArxRun.java (--dp, --dp-budget, --dp-steps, "
                "--dp-generalization, --output) and bench/arx/dp_reference.py",
        "dataset": "adult: examples/adult, the named quasi-identifiers with their hierarchies, every other column "
                   "insensitive",
        "note": "EDDifferentialPrivacy(epsilon, delta, scheme, deterministic = true): java.util.Random(0xDEADBEEF) "
                "for the sample and for the exponential mechanism (deid: seed: arx). Search budget 0.1 and 100 steps "
                "unless given (ARXConfiguration.setDPSearchBudget, setHeuristicSearchStepLimit in EXPANSIONS), no time "
                "limit. k, beta: the model's (getK, getBeta). sample_sha256: SHA-256 of the sampled row indices "
                "(0-based, ascending) joined by newlines. score: the released transformation's score "
                "(ARX reports it as the information loss of the data-dependent variant). output_sha256: ARX's "
                "released table (DataHandle.save, ';').",
        "runs": runs,
    }, indent=1) if not only else json.dumps(runs[0], indent=1))


if __name__ == "__main__":
    main()
