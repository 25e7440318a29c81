# Copyright the deid authors. Licensed under the Apache License, Version 2.0.
"""``python -m deid ...``: the same commands and options as ``deid ...``."""
from ._cli import main

if __name__ == "__main__":
    main()
