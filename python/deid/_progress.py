# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""Progress of a run: a bar (tqdm when installed, plain text otherwise) or a
callable of the user's."""
from __future__ import annotations

import sys
import time
from typing import Any, Callable, NamedTuple, Optional


class Progress(NamedTuple):
    """One progress update.

    ``phase`` is "reading", "encoding", "search" or "writing"; the other
    fields are set during the search only (None otherwise): transformations
    checked so far, the best information loss found so far, seconds since
    the search started and, when the algorithm can estimate it, the fraction
    of the search done (0 to 1).
    """

    phase: str
    checked: Optional[int] = None
    best_loss: Optional[float] = None
    elapsed_seconds: Optional[float] = None
    fraction_done: Optional[float] = None


class _Bar:
    """progress=True: a tqdm bar (tqdm.auto: a widget in a notebook) or, without
    tqdm, one line of text on standard error rewritten in place."""

    def __init__(self) -> None:
        try:
            from tqdm.auto import tqdm
        except ImportError:
            tqdm = None
        self._tqdm = tqdm
        self._bar: Any = None
        self._last_text = 0.0
        self._last_phase = ""
        self._shown = False

    def __call__(self, p: Progress) -> None:
        if self._tqdm is not None:
            if self._bar is None:
                self._bar = self._tqdm(total=100, desc="deid", unit="%", leave=False,
                                       bar_format="{desc}{percentage:3.0f}%|{bar}|{postfix}")
            self._bar.set_description(f"deid {p.phase}", refresh=False)
            if p.phase == "search" and p.checked is not None:
                if p.fraction_done is not None:
                    self._bar.n = round(100 * p.fraction_done, 1)
                loss = "" if p.best_loss is None else f", best loss {p.best_loss:.6f}"
                self._bar.set_postfix_str(f"{p.checked} checked{loss}", refresh=False)
            self._bar.refresh()
            return
        # A new phase is always shown; updates within the search at most
        # twice a second.
        now = time.monotonic()
        if p.phase == self._last_phase and now - self._last_text < 0.5:
            return
        self._last_text = now
        self._last_phase = p.phase
        text = f"deid: {p.phase}"
        if p.phase == "search" and p.checked is not None:
            if p.fraction_done is not None:
                text += f" {100 * p.fraction_done:3.0f}%"
            text += f", {p.checked} checked"
            if p.best_loss is not None:
                text += f", best loss {p.best_loss:.6f}"
        sys.stderr.write("\r" + text.ljust(60)[:79])
        sys.stderr.flush()
        self._shown = True

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        if self._shown:
            sys.stderr.write("\r" + " " * 60 + "\r")
            sys.stderr.flush()
            self._shown = False


class Hooks:
    """The callback the core calls, and its cleanup."""

    def __init__(self, progress: Any) -> None:
        self.bar: Optional[_Bar] = None
        self.user: Optional[Callable[[Progress], Any]] = None
        if progress is True:
            self.bar = _Bar()
        elif callable(progress):
            self.user = progress
        elif progress not in (None, False):
            raise TypeError("progress must be None, True or a callable taking a deid.Progress")

    def callback(self) -> Optional[Callable[..., None]]:
        target = self.bar or self.user
        if target is None:
            return None

        def call(phase: str, checked: Any, best_loss: Any, elapsed: Any, fraction: Any) -> None:
            target(Progress(phase, checked, best_loss, elapsed, fraction))

        return call

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
