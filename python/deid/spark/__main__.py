# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""python -m deid.spark JOB.yaml (docs/spark.md)."""
from ._cli import main

raise SystemExit(main())
