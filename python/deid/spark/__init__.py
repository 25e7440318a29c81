# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""deid on Apache Spark: de-identify a DataFrame that lives on a cluster.

    from pyspark.sql import SparkSession
    import deid.spark

    spark = SparkSession.builder.getOrCreate()
    df = spark.read.parquet("survey.parquet")
    r = deid.spark.anonymize(df, "job.yaml")
    r.result["transformation"]      # the JSON result of `deid anonymize`
    r.data                          # the release: a lazy Spark DataFrame
    r.write("released.parquet")     # written aside, committed by rename

The work splits as in PostgreSQL's pushdown (docs/databases.md): Spark's
executors group the rows into the histogram the search needs (one row per
distinct combination of the quasi-identifying and sensitive values, with
its count, in order of first appearance); the histogram comes to the
driver as Arrow record batches into the engine's grouped path; the search
runs on the driver; and the release is a Spark plan that joins every row
with a broadcast map per quasi-identifier and the broadcast suppressed
classes. No row is ever collected to the driver. risk measures the
re-identification risk from the same histogram (of the quasi-identifiers
alone); verify runs the independent verifier's checks on a release, its
rows paired with the input's by a key column (they pass through the
driver, as the verifier reads files). docs/spark.md is the reference;
``python -m deid.spark JOB.yaml`` runs a job file.

The parts: _histogram (the grouping on Spark), _anonymize (the search),
_release (the release's plan and SparkResult), _commit (writing whole or
not at all), _cli (python -m deid.spark), _risk, _verify; submit.py is
the file spark-submit runs (LAUNCHER).
"""
from ._anonymize import anonymize
from ._cli import LAUNCHER, main
from ._commit import remove_stale, write_atomically, write_table  # noqa: F401 (the two writers, for callers)
from ._common import SPARK_SOURCE
from ._release import SparkResult
from ._risk import risk
from ._verify import verify

__all__ = ["anonymize", "risk", "verify", "SparkResult", "SPARK_SOURCE", "main", "LAUNCHER", "remove_stale"]
