# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""deid.suppress: local cell suppression (`deid suppress`)."""
from __future__ import annotations

from typing import Any


class SuppressionResult:
    pass


def suppress(data: Any, job: Any, *, threads: Any = None) -> SuppressionResult:
    raise NotImplementedError
