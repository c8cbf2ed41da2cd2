"""Tooling that runs the four services on this machine, for the end-to-end tests, the walk-forward evaluation, the
benchmarks and ``make run``; the services themselves never import it.

``launcher``: the services as uvicorn processes on loopback (one definition of their commands and environment).
``fake_llm``: an OpenAI-compatible server that answers from a script, in its own process. ``llm_replies``: the
scripted replies of the nine analysing roles. ``api_paths``: the HTTP paths the tooling calls.
"""
