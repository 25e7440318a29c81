# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""deid.verify: the independent verifier, as `deid verify` runs it."""
from __future__ import annotations

import json
import os
from typing import Any, Dict, Optional

from ._job import load_job


def verify(job: Any, *, output: "Optional[str | os.PathLike[str]]" = None,
           result: "Optional[str | os.PathLike[str]]" = None,
           input: "Optional[str | os.PathLike[str]]" = None) -> Dict[str, Any]:
    """Checks a released table against its job with the independent verifier
    (docs/verify.md), as ``deid verify JOB --output FILE --result FILE``.

    The verifier reads files or PostgreSQL tables (it shares no code with
    the engine, not even the reader; a table is fetched with COPY and parsed
    by the verifier's reader, its rows paired with the input's by their
    values: docs/verify.md, "Tables"): `output` is the released CSV
    (default: the job's output.path or output table), `input` the input CSV
    (default: the job's input.path or input table),
    `result` the JSON result whose counts and SHA-256s are checked too
    (optional). Write them with Result.to_csv and Result.save_result, or
    verify a run in memory with Result.verify() (SuppressionResult.verify()),
    which writes these files into a temporary directory for you.

    Returns the table of checks as ``deid verify --json`` writes it:
    {"output": ..., "valid": bool, "checks": [{"check", "status", "detail",
    ...}, ...]}. A failed check is not an exception: see "valid".
    """
    from . import _core
    parsed = load_job(job, False, None)
    f = lambda p: "" if p is None else os.fspath(p)  # noqa: E731
    return json.loads(_core.verify(parsed, f(input), f(output), f(result)))
