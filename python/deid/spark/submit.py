# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""The file that spark-submit runs for deid.spark (docs/spark.md,
"spark-submit"): spark-submit takes a Python file, not a module, so

    spark-submit --master spark://head:7077 "$(python -m deid.spark --launcher)" job.yaml --output out.parquet

runs ``python -m deid.spark job.yaml --output out.parquet`` in the driver
that spark-submit starts, on the session spark-submit configured. The
driver's Python (PYSPARK_DRIVER_PYTHON, else PYSPARK_PYTHON) must have deid
installed; the executors run no Python of deid's.
"""
from deid.spark._cli import main

if __name__ == "__main__":
    raise SystemExit(main())
