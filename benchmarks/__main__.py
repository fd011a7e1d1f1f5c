"""``python -m benchmarks [figure ...] [--write-docs]``."""

import sys

from benchmarks.runner import main

sys.exit(main())
