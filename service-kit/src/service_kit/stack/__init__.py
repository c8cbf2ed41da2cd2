"""Tooling that runs the four services on this machine, for the end-to-end tests, the walk-forward evaluation, the
benchmarks and ``make run``; the services themselves never import it.

``launcher``: the services as uvicorn processes on loopback (one definition of their commands and environment).
``api_paths``: the HTTP paths the tooling calls. The fake LLM server the tests and benchmarks use is a test fake and
lives with the tests (``tests-e2e/fakes``, package ``stack_fakes``).
"""
