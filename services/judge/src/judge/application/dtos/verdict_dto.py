"""VerdictDTO: the judge's answer after the guardrails, which is the published ``shared_contracts.judge.Verdict``
(the service builds it and the route returns it as is)."""

from __future__ import annotations

from shared_contracts.judge import Verdict

VerdictDTO = Verdict

__all__ = ["VerdictDTO"]
