"""Walk-forward evaluation of the verdicts (``make evaluate``; docs/evaluation.md)."""
