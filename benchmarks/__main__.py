"""``python -m benchmarks``: see benchmarks/README.md."""

import sys

from benchmarks.cli import main

sys.exit(main())
