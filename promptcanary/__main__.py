"""``python -m promptcanary``: the same command line as the ``promptcanary`` console script (for
``python -X importtime -m promptcanary ...``, or an interpreter without the script on PATH)."""

from __future__ import annotations

import sys

from promptcanary.cli import main

if __name__ == "__main__":
    sys.exit(main())
