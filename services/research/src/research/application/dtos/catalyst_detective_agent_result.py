"""Application DTOs."""

from __future__ import annotations

from shared_contracts.research import CatalystDetectiveResult


class CatalystDetectiveAgentResult(CatalystDetectiveResult):
    """What ``CatalystDetectiveService.run`` returns (the spec's name): the wire shape
    ``CatalystDetectiveResult`` — ``result`` with the headline fields, ``raw_llm_output``,
    ``user_prompt``, ``catalyst_context`` — validated as it is built."""
