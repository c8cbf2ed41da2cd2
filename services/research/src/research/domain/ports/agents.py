"""The analysing engines: one port per expert, ``ExpertAgent[<expert's facts>, <expert's verdict>]`` (e.g.
``ExpertAgent[TechnicalFacts, TechnicalVerdict]``), each with an LLM adapter and a rules adapter.

An agent receives the facts (indicators computed from the data) and returns an ``AgentAnswer``: the
verdict (headline fields), the engine that produced it, what it was given and what it said.
LLM adapters raise ``LLMOutputParseError`` for output that is not the promised JSON, and the LLM kit's
``LLMError`` subclasses when the endpoint is unreachable, slow or refuses the call.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Generic, TypeVar

from pydantic import BaseModel

from research.domain.model.verdicts import AgentAnswer

F = TypeVar("F")
V = TypeVar("V", bound=BaseModel)


class ExpertAgent(ABC, Generic[F, V]):
    @abstractmethod
    async def analyse(self, facts: F) -> AgentAnswer[V]: ...
