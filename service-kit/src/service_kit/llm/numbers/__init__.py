"""The numbers gate: every figure a model writes is traced to the figures its call was given (``gate.py``)."""
