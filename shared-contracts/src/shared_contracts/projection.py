"""The expert-result → ExpertSummary projection (debate spec's mapping table), written once.

Used by the coordinator's DebateGatewayAdapter and by the debate service's endpoint. It keeps four
fields per expert and drops every debug or bulk field (``input``, ``output``, ``*_indicators``, ...).
Beside the summary, the debate weighs each expert by how much of its own data it had: ``ExpertDataQuality``
counts the result's ``data_gaps`` and ``staleness`` (``project_data_quality``, sent beside the summaries as the
debate request's ``data_quality``); ``failed_experts_of`` names the experts whose entry says they failed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from shared_contracts.experts import ExpertType, JsonInt
from shared_contracts.standing import CompositeStanding


class ExpertSummary(BaseModel):
    model_config = ConfigDict(extra="forbid")

    signal: str = Field(min_length=1)
    confidence: float = Field(ge=0.0, le=1.0, allow_inf_nan=False, strict=True)  # not "0.8", not true
    reasoning: str
    risk_warning: str


class ExpertDataQuality(BaseModel):
    """How many data gaps and stale inputs an expert's result names (0 when it names none)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    data_gaps: JsonInt = Field(default=0, ge=0)
    staleness: JsonInt = Field(default=0, ge=0)


DATA_QUALITY_FIELDS = ("data_gaps", "staleness")
"""The result fields (lists of strings) ``ExpertDataQuality`` counts; a summary may carry them too."""


class ProjectionError(ValueError):
    """An expert result that cannot be read as a summary (unknown expert, missing or invalid fields)."""

    def __init__(self, expert: str, message: str) -> None:
        super().__init__(f"{expert}: {message}")
        self.expert = expert


_SUMMARY_FIELDS = frozenset(ExpertSummary.model_fields)
_SUMMARY_FORM = "signal, confidence, reasoning, risk_warning"
_ENVELOPE_STATUSES = ("success", "failed")

# expert -> (signal, confidence, reasoning, risk_warning) paths; a tuple path reads a nested field.
_MAPPING: dict[ExpertType, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    ExpertType.TECHNICAL_ANALYST: (("signal",), ("confidence",), ("summary_reasoning",), ("risk_warning",)),
    ExpertType.FINANCIAL_AUDITOR: (("signal",), ("confidence",), ("summary_reasoning",), ("risk_warning",)),
    ExpertType.VALUATION_MODELER: (
        ("valuation_verdict",),
        ("confidence_score",),
        ("reasoning_summary",),
        ("risk_factors",),
    ),
    ExpertType.MACRO_INTELLIGENCE: (
        ("macro_environment",),
        ("confidence_score",),
        ("macro_summary",),
        ("key_risks",),
    ),
    ExpertType.CATALYST_DETECTIVE: (
        ("result", "catalyst_assessment"),
        ("result", "confidence_score"),
        ("result", "catalyst_summary"),
        ("result", "negative_catalysts"),
    ),
}


def _read(data: Mapping[str, Any], path: tuple[str, ...], expert: str) -> Any:
    node: Any = data
    for key in path:
        if not isinstance(node, Mapping) or key not in node:
            raise ProjectionError(expert, f"missing field {'.'.join(path)!r} (or send a summary: {_SUMMARY_FORM})")
        node = node[key]
    return node


def _join_risks(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return "; ".join(_format_item(item) for item in value if _format_item(item))


def _format_item(item: Any) -> str:
    if isinstance(item, str):
        return item.strip()
    if isinstance(item, Mapping):
        title = next((str(item[k]) for k in ("title", "event", "name", "risk") if item.get(k)), "")
        detail = next((str(item[k]) for k in ("description", "detail", "summary") if item.get(k)), "")
        return f"{title}: {detail}" if title and detail else (title or detail)
    return str(item)


def _unwrap(value: Any) -> Mapping[str, Any] | None:
    """Return the expert's data, or None for a failed expert (None, or an envelope not in success)."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise TypeError(f"an expert result must be an object, not {type(value).__name__}")
    if "status" in value and ("data" in value or "error" in value):
        if value["status"] not in _ENVELOPE_STATUSES:
            raise TypeError(f"an envelope's status must be 'success' or 'failed', not {value['status']!r:.40}")
        if value["status"] != "success":
            return None
        data = value.get("data")
        return data if isinstance(data, Mapping) else None
    return value


def _data_of(expert: str, value: Any) -> Mapping[str, Any] | None:
    """``_unwrap`` with a malformed entry reported as that expert's ``ProjectionError``."""
    try:
        return _unwrap(value)
    except TypeError as exc:
        raise ProjectionError(expert, str(exc)) from exc


def summarize_expert_result(expert: str, value: Any) -> ExpertSummary | None:
    """Project one expert's result; None when the expert failed (skipped, per the spec)."""
    data = _data_of(expert, value)
    if data is None:
        return None
    try:
        if _SUMMARY_FIELDS.issubset(data):
            return ExpertSummary.model_validate({k: data[k] for k in _SUMMARY_FIELDS})
        try:
            expert_type = ExpertType(expert)
        except ValueError:
            raise ProjectionError(
                expert, f"unknown expert; expected one of {', '.join(e.value for e in ExpertType)}"
            ) from None
        signal, confidence, reasoning, risk = _MAPPING[expert_type]
        return ExpertSummary(
            signal=str(_read(data, signal, expert)),
            confidence=_read(data, confidence, expert),
            reasoning=str(_read(data, reasoning, expert)),
            risk_warning=_join_risks(_read(data, risk, expert)),
        )
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise ProjectionError(expert, problems) from exc


def symbol_of_result(value: Any) -> str | None:
    """The symbol an expert result says it is about (raw results and envelopes carry one), else None."""
    try:
        data = _unwrap(value)
    except TypeError:
        return None
    symbol = data.get("symbol") if data is not None else None
    return symbol if isinstance(symbol, str) else None


def project_expert_results(expert_results: Mapping[str, Any]) -> dict[str, ExpertSummary]:
    """Summaries of the successful experts, keyed by expert name; failed experts are skipped."""
    summaries: dict[str, ExpertSummary] = {}
    for expert, value in expert_results.items():
        summary = summarize_expert_result(expert, value)
        if summary is not None:
            summaries[expert] = summary
    return summaries


def _notes(data: Mapping[str, Any], field: str, expert: str) -> list[str]:
    value = data.get(field)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ProjectionError(expert, f"{field} must be a list of strings")
    return value


def data_quality_of_result(expert: str, value: Any) -> ExpertDataQuality | None:
    """Counts of the result's ``data_gaps`` and ``staleness``; None when the expert failed."""
    data = _data_of(expert, value)
    if data is None:
        return None
    return ExpertDataQuality(**{field: len(_notes(data, field, expert)) for field in DATA_QUALITY_FIELDS})


def project_data_quality(expert_results: Mapping[str, Any]) -> dict[str, ExpertDataQuality]:
    """Data quality of the successful experts, keyed by expert name; failed experts are skipped."""
    quality: dict[str, ExpertDataQuality] = {}
    for expert, value in expert_results.items():
        counted = data_quality_of_result(expert, value)
        if counted is not None:
            quality[expert] = counted
    return quality


def failed_experts_of(expert_results: Mapping[str, Any]) -> list[str]:
    """The experts whose entry says they failed (None, or an envelope whose status is not success)."""
    failed = []
    for expert, value in expert_results.items():
        try:
            if _unwrap(value) is None:
                failed.append(expert)
        except TypeError:
            continue  # not a failure: an unreadable result, which the projection reports
    return failed


def composite_of(expert_results: Mapping[str, Any]) -> CompositeStanding | None:
    """The stock's composite standing (``relative_standing.composite``) from the successful results that carry
    one, the technical analyst's first (every expert states the same research composite); None without one or
    when it does not read as a ``CompositeStanding``."""
    ordered = sorted(expert_results.items(), key=lambda item: item[0] != ExpertType.TECHNICAL_ANALYST.value)
    for _, value in ordered:
        try:
            data = _unwrap(value)
        except TypeError:
            continue
        standing = data.get("relative_standing") if data is not None else None
        found = standing.get("composite") if isinstance(standing, Mapping) else None
        if isinstance(found, Mapping):
            try:
                return CompositeStanding.model_validate(found)
            except ValidationError:
                continue
    return None
