"""``python -m evaluation``: the same as ``research-eval``."""

import sys

from evaluation.cli import main

sys.exit(main())
