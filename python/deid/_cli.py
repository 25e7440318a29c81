# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""The ``deid`` command of the installed package: the C++ tool the wheel
ships (deid/_bin/deid), started with the arguments given, so that
``deid ...`` and ``python -m deid ...`` take the same commands and options
and give the same output and exit codes as a ``deid`` built from source.
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


def main(argv: Optional[List[str]] = None) -> NoReturn:
    args = sys.argv[1:] if argv is None else list(argv)
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
