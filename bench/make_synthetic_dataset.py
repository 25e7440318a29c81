#!/usr/bin/env python3
"""Writes the synthetic 15-quasi-identifier benchmark for the search
(docs/search.md, "Benchmark"): a CSV, its hierarchies and job files.

    bench/make_synthetic_dataset.py OUT_DIR [--data ../shared/data] [--rows 40000] [--seed 20160101] [--wide]

Each record joins a record of adult (all nine attributes) with a record of
cup (ZIP, STATE, INCOME, RAMNTALL, NGIFTALL, MINRAMNT) of the same sex and an
age within two years (the nearest age when none is that close). The marginal
distributions keep the skew of the real data; the join correlates the cup
attributes with age and sex, and each cup record keeps its own correlations
(ZIP with STATE, the giving amounts with each other). Records are drawn with
replacement from a seeded Mersenne Twister, so the output is the same for the
same seed and Python 3.

Writes OUT_DIR/synthetic.csv, OUT_DIR/hierarchies/ATTRIBUTE.csv (copies of
the shared hierarchies) and OUT_DIR/job-NN.yaml for NN = 10, 12 and 15: the
first NN attributes of QUASI_IDENTIFIERS are quasi-identifying, the others
insensitive; 5-anonymity, 5 % suppression limit, Loss, best-first search.
Lattice sizes: 810,000 (10), 4,860,000 (12), 58,320,000 (15).

With --wide the table has 50 quasi-identifying columns, for the wide-table
benchmark (bench/wide-tables.py): the 15 above, unchanged, then those of
further cup records joined the same way (same sex, age within two years),
six attributes each, named ATTRIBUTE_2, ATTRIBUTE_3, ... (WIDE_EXTRA's
order), with copies of the cup hierarchies; the further records are drawn
from a second generator (seed + 1), so the first 15 columns are those of the
run without --wide. Adds job-20, job-30 and job-50.
"""

import argparse
import bisect
import csv
import os
import random
import shutil
import sys

# Order in which quasi-identifiers are added: adult and cup attributes mixed,
# so that every prefix has attributes of both and a large lattice.
QUASI_IDENTIFIERS = [
    ("age", "adult"), ("sex", "adult"), ("ZIP", "cup"), ("education", "adult"),
    ("marital-status", "adult"), ("RAMNTALL", "cup"), ("occupation", "adult"),
    ("NGIFTALL", "cup"), ("native-country", "adult"), ("MINRAMNT", "cup"),
    ("race", "adult"), ("INCOME", "cup"), ("workclass", "adult"),
    ("salary-class", "adult"), ("STATE", "cup"),
]
SIZES = (10, 12, 15)
# The columns of one further cup record, in the order they are added (--wide).
WIDE_EXTRA = ("RAMNTALL", "INCOME", "NGIFTALL", "STATE", "MINRAMNT", "ZIP")
WIDE_COLUMNS = 50
WIDE_SIZES = (20, 30, 50)


def read(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter=";"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out_dir")
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--data", default=os.path.join(here, "..", "..", "shared", "data"),
                    help="folder with adult/ and cup/ (default: ../shared/data next to the repository)")
    ap.add_argument("--rows", type=int, default=40000)
    ap.add_argument("--seed", type=int, default=20160101)
    ap.add_argument("--wide", action="store_true", help="50 quasi-identifying columns (more cup records joined)")
    args = ap.parse_args()

    # (column, source attribute, source table, which cup record: 1 the first)
    columns = [(n, n, src, 1) for n, src in QUASI_IDENTIFIERS]
    sizes = SIZES
    if args.wide:
        j = 2
        while len(columns) < WIDE_COLUMNS:
            for a in WIDE_EXTRA:
                if len(columns) < WIDE_COLUMNS:
                    columns.append((f"{a}_{j}", a, "cup", j))
            j += 1
        sizes = SIZES + WIDE_SIZES
    extra_records = max(c[3] for c in columns) - 1
    rng2 = random.Random(args.seed + 1)

    adult = read(os.path.join(args.data, "adult", "adult.csv"))
    cup = read(os.path.join(args.data, "cup", "cup.csv"))

    # cup records by sex, sorted by age, for the join.
    by_sex = {}
    for r in cup:
        sex = {"Male": "Male", "Female": "Female"}.get(r["GENDER"])
        if sex is None or not r["AGE"].isdigit():
            continue
        by_sex.setdefault(sex, []).append((int(r["AGE"]), r))
    for rows in by_sex.values():
        rows.sort(key=lambda x: x[0])
    ages = {sex: [a for a, _ in rows] for sex, rows in by_sex.items()}

    rng = random.Random(args.seed)
    out_rows = []
    for _ in range(args.rows):
        a = adult[rng.randrange(len(adult))]
        age = int(a["age"])
        pool, keys = by_sex[a["sex"]], ages[a["sex"]]
        lo = bisect.bisect_left(keys, age - 2)
        hi = bisect.bisect_right(keys, age + 2)
        if lo == hi:  # nobody within two years: the nearest age
            i = min(bisect.bisect_left(keys, age), len(keys) - 1)
            lo = bisect.bisect_left(keys, keys[i])
            hi = bisect.bisect_right(keys, keys[i])
        cs = [pool[rng.randrange(lo, hi)][1]]
        cs += [pool[rng2.randrange(lo, hi)][1] for _ in range(extra_records)]
        row = {}
        for name, attribute, source, record in columns:
            row[name] = a[attribute] if source == "adult" else cs[record - 1][attribute]
        out_rows.append(row)

    os.makedirs(os.path.join(args.out_dir, "hierarchies"), exist_ok=True)
    names = [c[0] for c in columns]
    with open(os.path.join(args.out_dir, "synthetic.csv"), "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, delimiter=";", lineterminator="\n")
        w.writerow(names)
        for r in out_rows:
            w.writerow([r[n] for n in names])
    for name, attribute, source, _ in columns:
        shutil.copyfile(os.path.join(args.data, source, "hierarchies", attribute + ".csv"),
                        os.path.join(args.out_dir, "hierarchies", name + ".csv"))
    for size in sizes:
        lines = [
            f"# Synthetic benchmark, {size} quasi-identifiers (bench/make_synthetic_dataset.py,",
            f"# seed {args.seed}, {args.rows} rows).",
            "input:",
            "  path: synthetic.csv",
            '  delimiter: ";"',
            "attributes:",
        ]
        for name in names[:size]:
            lines.append(f"  {name}: {{role: quasi-identifying, hierarchy: hierarchies/{name}.csv}}")
        lines += [
            "default-role: insensitive",
            "privacy:",
            "  - k-anonymity: {k: 5}",
            "suppression-limit: 0.05",
            "quality:",
            "  model: loss",
            "search:",
            "  algorithm: best-first",
        ]
        with open(os.path.join(args.out_dir, f"job-{size}.yaml"), "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
    print(f"wrote {args.rows} rows, {len(names)} hierarchies and jobs for {', '.join(map(str, sizes))} "
          f"quasi-identifiers to {args.out_dir}", file=sys.stderr)


if __name__ == "__main__":
    main()
