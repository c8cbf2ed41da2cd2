"""Indicator calculations: pure functions from domain market data to the facts an engine judges.

They are domain code on purpose: deterministic arithmetic over domain objects, no I/O. Standard
technical indicators come from TA-Lib (a calculation library, like numpy), not from hand-rolled loops.
"""
