"""Every sentence the rules engine writes, in each REPORT_LANGUAGE (zh default, en).

Each template is filled only with values taken from the input (expert names, verdict words, confidences,
reasoning and risk texts) or computed by a documented rule, so every sentence can be traced back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from debate.domain.dtos.evidence import EvidencePanel
from shared_contracts.experts import EXPERT_LABELS

Language = Literal["zh", "en"]


@dataclass(frozen=True)
class Texts:
    language: Language
    list_sep: str
    sentence_sep: str
    none: str
    expert_labels: dict[str, str]
    mitigations: dict[str, str]
    mitigation_default: str
    weighted_coverage: str  # "{label} {confidence}×{coverage}"
    coverage_note: str  # ", data completeness {coverage}" after an argument
    risk_with_sources: str  # "{risk}（{sources}）"
    side_names: dict[str, str]  # BULLISH / BEARISH: {side}
    stances: dict[str, str]  # BULLISH / BEARISH: {stance}
    point: str
    thesis: str
    thesis_none: str
    strength: str
    disagreement: str
    disagreement_standing: str  # the same between a dimension that adds to the score and one that takes from it
    tally: str
    coverage: str
    verdicts: dict[str, str]  # by direction


ZH = Texts(
    language="zh",
    list_sep="、",
    sentence_sep="",
    none="无",
    expert_labels=EXPERT_LABELS["zh"],
    mitigations={
        "technical_analyst": "在关键支撑位下方设置止损，跌破即减仓",
        "financial_auditor": "跟踪下一期财报的相关指标，恶化即下调仓位",
        "valuation_modeler": "分批建仓并控制仓位，以估值回归幅度设定止盈止损",
        "macro_intelligence": "控制总仓位，跟踪利率、汇率与政策变化",
        "catalyst_detective": "跟踪事件进展，事件落地前控制仓位",
    },
    mitigation_default="持续跟踪该风险，触发时降低仓位",
    weighted_coverage="{label} {confidence}×{coverage}",
    coverage_note="，数据完整度 {coverage}",
    risk_with_sources="{risk}（{sources}）",
    side_names={"BULLISH": "多", "BEARISH": "空"},
    stances={"BULLISH": "看多", "BEARISH": "看空"},
    point="{label}{stance}（{signal}），置信度 {confidence}{coverage}",
    thesis="{symbol} {side}头论证：{count}/{total} 位专家{stance}（{experts}），合计置信度 {total_confidence}。",
    thesis_none="{symbol} {side}头论证：{total} 位专家中无人{stance}，{side}头缺乏直接证据。",
    strength="{label}看多（{signal}，置信度 {confidence}）：{evidence}",
    disagreement="{bull_label}看多（{bull_confidence}）与{bear_label}看空（{bear_confidence}）相互矛盾：「{bull_evidence}」对「{bear_evidence}」",
    disagreement_standing=(
        "{bull_label}为综合得分加分（{bull_confidence}）而{bear_label}减分（{bear_confidence}）：「{bull_evidence}」对"
        "「{bear_evidence}」"
    ),
    tally=(
        "证据权重 = 置信度 × 数据完整度。多方：{bullish_experts}，合计 {bull:.2f}；"
        "空方：{bearish_experts}，合计 {bear:.2f}；中性：{neutral_experts}，合计 {neutral:.2f}。"
        "力量对比 =（多方 − 空方）/（多方 + 空方 + {dilution:.2f} × 中性）"
        "=（{bull:.2f} − {bear:.2f}）/（{bull:.2f} + {bear:.2f} + {dilution:.2f} × {neutral:.2f}）= {balance:+.2f}；"
        "{side}方强度（同向专家相互印证）= {strength:.2f}；净分 = 力量对比 × 强度 = {score:+.2f}。"
    ),
    coverage=(
        "听取：{answered}/{asked} 位专家给出结果（失败：{failed}），证据占比 {share}%（数据完整度之和 / 所问专家数）。"
    ),
    verdicts={
        "BULLISH": "净分 ≥ +{threshold:.2f}，多方胜出：中性专家只削弱而不抵消同向证据；"
        "置信度 = |净分| × 缺失系数 {missing_factor:.2f} = {confidence:.2f}。",
        "BEARISH": "净分 ≤ −{threshold:.2f}，空方胜出：中性专家只削弱而不抵消同向证据；"
        "置信度 = |净分| × 缺失系数 {missing_factor:.2f} = {confidence:.2f}。",
        "NEUTRAL": "净分介于 −{threshold:.2f} 与 +{threshold:.2f} 之间，双方均未形成优势，判定中性；"
        "置信度 = 0.5 ×（1 − |净分| / {threshold:.2f}）× 缺失系数 {missing_factor:.2f} = {confidence:.2f}。",
    },
)

EN = Texts(
    language="en",
    list_sep=", ",
    sentence_sep=" ",
    none="none",
    expert_labels=EXPERT_LABELS["en"],
    mitigations={
        "technical_analyst": "Set a stop-loss below the key support level and cut the position if it breaks",
        "financial_auditor": "Track these metrics in the next financial report and reduce the position if they worsen",
        "valuation_modeler": "Build the position in tranches and size take-profit/stop-loss by the valuation gap",
        "macro_intelligence": "Cap total exposure and track rates, FX and policy changes",
        "catalyst_detective": "Follow the event and keep the position small until it resolves",
    },
    mitigation_default="Keep monitoring this risk and reduce the position if it materialises",
    weighted_coverage="{label} {confidence}x{coverage}",
    coverage_note=", data completeness {coverage}",
    risk_with_sources="{risk} ({sources})",
    side_names={"BULLISH": "bull", "BEARISH": "bear"},
    stances={"BULLISH": "bullish", "BEARISH": "bearish"},
    point="{label} is {stance} ({signal}), confidence {confidence}{coverage}",
    thesis="{symbol} {side} case: {count}/{total} experts are {stance} ({experts}), total confidence "
    "{total_confidence}.",
    thesis_none="{symbol} {side} case: none of the {total} experts is {stance}; the {side} side has no direct "
    "evidence.",
    strength="{label} is bullish ({signal}, confidence {confidence}): {evidence}",
    disagreement=(
        "{bull_label} is bullish ({bull_confidence}) while {bear_label} is bearish ({bear_confidence}): "
        '"{bull_evidence}" versus "{bear_evidence}"'
    ),
    disagreement_standing=(
        "{bull_label} adds to the score ({bull_confidence}) while {bear_label} takes from it ({bear_confidence}): "
        '"{bull_evidence}" versus "{bear_evidence}"'
    ),
    tally=(
        "Evidence weight = confidence x data completeness. Bull side: {bullish_experts}, total {bull:.2f}; "
        "bear side: {bearish_experts}, total {bear:.2f}; neutral: {neutral_experts}, total {neutral:.2f}. "
        "Balance = (bull - bear) / (bull + bear + {dilution:.2f} x neutral) = ({bull:.2f} - {bear:.2f}) / "
        "({bull:.2f} + {bear:.2f} + {dilution:.2f} x {neutral:.2f}) = {balance:+.2f}; strength of the {side} side "
        "(agreeing experts corroborate each other) = {strength:.2f}; net score = balance x strength = {score:+.2f}."
    ),
    coverage=(
        "Heard: {answered} of {asked} experts answered (failed: {failed}), {share} % of the evidence "
        "(sum of data completeness / experts asked)."
    ),
    verdicts={
        "BULLISH": "The net score is at least +{threshold:.2f}, so the bull side wins: neutral experts temper "
        "aligned evidence but do not cancel it; confidence = |net score| x missing-evidence factor "
        "{missing_factor:.2f} = {confidence:.2f}.",
        "BEARISH": "The net score is at most -{threshold:.2f}, so the bear side wins: neutral experts temper "
        "aligned evidence but do not cancel it; confidence = |net score| x missing-evidence factor "
        "{missing_factor:.2f} = {confidence:.2f}.",
        "NEUTRAL": "The net score lies between -{threshold:.2f} and +{threshold:.2f}, so neither side prevails and "
        "the direction is neutral; confidence = 0.5 x (1 - |net score| / {threshold:.2f}) x missing-evidence "
        "factor {missing_factor:.2f} = {confidence:.2f}.",
    },
)

_TEXTS: dict[str, Texts] = {"zh": ZH, "en": EN}


def texts_for(language: Language) -> Texts:
    return _TEXTS[language]


def expert_label(texts: Texts, expert: str) -> str:
    return texts.expert_labels.get(expert, expert)


def weighted(texts: Texts, expert: str, confidence: float, coverage: float = 1.0) -> str:
    """ "label confidence", or "label confidence×coverage" when the expert lacked data."""
    if coverage >= 1.0:
        return f"{expert_label(texts, expert)} {confidence:.2f}"
    return texts.weighted_coverage.format(
        label=expert_label(texts, expert), confidence=f"{confidence:.2f}", coverage=f"{coverage:.2f}"
    )


def mitigation_for(texts: Texts, expert: str | None) -> str:
    return texts.mitigations.get(expert or "", texts.mitigation_default)


def coverage_sentence(texts: Texts, panel: EvidencePanel) -> str:
    """Who answered, who failed and what share of the evidence asked for the debate heard."""
    return texts.coverage.format(
        answered=len(panel.experts),
        asked=panel.asked,
        failed=texts.list_sep.join(expert_label(texts, e) for e in panel.failed_experts) or texts.none,
        share=f"{panel.evidence_share * 100:.0f}",
    )
