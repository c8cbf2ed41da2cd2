"""Benchmarks of the four services run as real processes on loopback (issue 8). See README.md.

The services, the fake LLM and its scripted replies are started by the workspace's launcher
(``service_kit.stack``), the one the end-to-end tests and the evaluation use.
"""
