# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""deid.verify: the independent verifier (`deid verify`)."""
from __future__ import annotations

from typing import Any


def verify(job: Any, **kwargs: Any) -> Any:
    raise NotImplementedError
