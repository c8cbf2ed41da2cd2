"""The five experts. The vocabulary is the published language (``shared_contracts.experts``); the
coordinator re-exports it here so its own layers name it as the spec does."""

from __future__ import annotations

from shared_contracts.experts import ExpertType

__all__ = ["ExpertType"]
