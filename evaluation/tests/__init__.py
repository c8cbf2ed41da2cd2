"""The evaluation package's tests (a package: its module names must not start with ``evaluation.``, which pytest's
importlib mode would otherwise derive from the folder and so shadow the real ``evaluation`` package)."""
