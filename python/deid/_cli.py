# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""The ``deid`` command of the installed package. ``deid ...`` and
``python -m deid ...`` take the same commands and options and give the same
output and exit codes as a ``deid`` built from source: they run the tool's
own C++ code (cli/app.cc) in this process (deid._core.run_cli), where the
package's Parquet codec is registered, so that jobs and command lines with
Parquet tables run too. Everything else (``deid serve``, a server that links
an HTTP library the module does not; ``--help``, ``--version``, a word that
is no command) runs as the tool the wheel ships (deid/_bin/deid), which
takes this process's place.
"""
from __future__ import annotations

import os
import subprocess
import sys
from typing import List, NoReturn, Optional

from . import _core


def executable() -> str:
    """The path of the command-line tool installed with the package."""
    # Beside the extension module, which an editable install keeps in
    # site-packages while the Python files stay in the source tree.
    path = os.path.join(os.path.dirname(os.path.abspath(_core.__file__)), "_bin", "deid")
    if not os.path.isfile(path):
        raise OSError(f"the deid command-line tool is not installed with this package (no {path}); "
                      "install the package with pip (docs/python.md)")
    return path


#: The commands run in this process (every command but serve).
IN_PROCESS = frozenset(["anonymize", "risk", "suppress", "verify", "utility", "hierarchy"])


def _command(args: List[str]) -> Optional[str]:
    """The command word: the first argument that is not an option of the
    whole command line (-q, --quiet, -j N, --threads N)."""
    skip = False
    for a in args:
        if skip:
            skip = False
        elif a in ("-j", "--threads"):
            skip = True
        elif not a.startswith("-"):
            return a
    return None


def main(argv: Optional[List[str]] = None) -> NoReturn:
    args = sys.argv[1:] if argv is None else list(argv)
    if _command(args) in IN_PROCESS:
        sys.stdout.flush()
        sys.stderr.flush()
        sys.exit(_core.run_cli(["deid", *args]))
    try:
        exe = executable()
    except OSError as e:
        print(f"deid: {e}", file=sys.stderr)
        sys.exit(3)
    sys.stdout.flush()
    sys.stderr.flush()
    if os.name == "posix":
        # The tool takes this process's place: its exit code, its signals
        # (Ctrl-C, SIGTERM: 130, 143) and its terminal, with no Python between.
        os.execv(exe, ["deid", *args])
    sys.exit(subprocess.call([exe, *args]))
