"""Every sentence the rules engine writes, in each REPORT_LANGUAGE (zh default, en).

Each template is filled only with values taken from the input (expert names, verdict words, confidences,
reasoning and risk texts) or computed by a documented rule, so every sentence can be traced back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from debate.domain.dtos.evidence import EvidencePanel

Language = Literal["zh", "en"]


@dataclass(frozen=True)
class Texts:
    list_sep: str
    sentence_sep: str
    none: str
    expert_labels: dict[str, str]
    mitigations: dict[str, str]
    mitigation_default: str
    weighted: str  # "{label} {confidence}"
    weighted_coverage: str  # "{label} {confidence}×{coverage}"
    coverage_note: str  # ", data coverage {coverage}" after an argument
    risk_with_sources: str  # "{risk}（{sources}）"
    bull_point: str
    bull_thesis: str
    bull_thesis_none: str
    bear_point: str
    bear_thesis: str
    bear_thesis_none: str
    strength: str
    disagreement: str
    tally: str
    side_names: dict[str, str]
    coverage: str
    verdict_bullish: str
    verdict_bearish: str
    verdict_neutral: str


ZH = Texts(
    list_sep="、",
    sentence_sep="",
    none="无",
    expert_labels={
        "technical_analyst": "技术分析师",
        "financial_auditor": "财务审计师",
        "valuation_modeler": "估值建模师",
        "macro_intelligence": "宏观情报员",
        "catalyst_detective": "催化剂侦探",
    },
    mitigations={
        "technical_analyst": "在关键支撑位下方设置止损，跌破即减仓",
        "financial_auditor": "跟踪下一期财报的相关指标，恶化即下调仓位",
        "valuation_modeler": "分批建仓并控制仓位，以估值回归幅度设定止盈止损",
        "macro_intelligence": "控制总仓位，跟踪利率、汇率与政策变化",
        "catalyst_detective": "跟踪事件进展，事件落地前控制仓位",
    },
    mitigation_default="持续跟踪该风险，触发时降低仓位",
    weighted="{label} {confidence}",
    weighted_coverage="{label} {confidence}×{coverage}",
    coverage_note="，数据覆盖 {coverage}",
    risk_with_sources="{risk}（{sources}）",
    bull_point="{label}看多（{signal}），置信度 {confidence}{coverage}",
    bull_thesis="{symbol} 多头论证：{count}/{total} 位专家看多（{experts}），合计置信度 {total_confidence}。",
    bull_thesis_none="{symbol} 多头论证：{total} 位专家中无人看多，多头缺乏直接证据。",
    bear_point="{label}看空（{signal}），置信度 {confidence}{coverage}",
    bear_thesis="{symbol} 空头论证：{count}/{total} 位专家看空（{experts}），合计置信度 {total_confidence}。",
    bear_thesis_none="{symbol} 空头论证：{total} 位专家中无人看空，空头缺乏直接证据。",
    strength="{label}看多（{signal}，置信度 {confidence}）：{evidence}",
    disagreement="{bull_label}看多（{bull_confidence}）与{bear_label}看空（{bear_confidence}）相互矛盾：「{bull_evidence}」对「{bear_evidence}」",
    tally=(
        "证据权重 = 置信度 × 数据覆盖。多方：{bull}，合计 {bull_total}；空方：{bear}，合计 {bear_total}；"
        "中性：{neutral}，合计 {neutral_total}。"
        "力量对比 =（多方 − 空方）/（多方 + 空方 + {dilution} × 中性）"
        "=（{bull_total} − {bear_total}）/（{bull_total} + {bear_total} + {dilution} × {neutral_total}）= {balance}；"
        "{leading}方强度（同向专家相互印证）= {strength}；净分 = 力量对比 × 强度 = {score}。"
    ),
    side_names={"BULLISH": "多", "BEARISH": "空"},
    coverage=(
        "覆盖：{answered}/{asked} 位专家给出结果（失败：{failed}），证据占比 {share}%（数据覆盖之和 / 所问专家数）。"
    ),
    verdict_bullish=(
        "净分 ≥ +{threshold}，多方胜出：中性专家只削弱而不抵消同向证据；"
        "置信度 = |净分| × 缺失系数 {factor} = {confidence}。"
    ),
    verdict_bearish=(
        "净分 ≤ −{threshold}，空方胜出：中性专家只削弱而不抵消同向证据；"
        "置信度 = |净分| × 缺失系数 {factor} = {confidence}。"
    ),
    verdict_neutral=(
        "净分介于 −{threshold} 与 +{threshold} 之间，双方均未形成优势，判定中性；"
        "置信度 = 0.5 ×（1 − |净分| / {threshold}）× 缺失系数 {factor} = {confidence}。"
    ),
)

EN = Texts(
    list_sep=", ",
    sentence_sep=" ",
    none="none",
    expert_labels={
        "technical_analyst": "Technical analyst",
        "financial_auditor": "Financial auditor",
        "valuation_modeler": "Valuation modeler",
        "macro_intelligence": "Macro intelligence",
        "catalyst_detective": "Catalyst detective",
    },
    mitigations={
        "technical_analyst": "Set a stop-loss below the key support level and cut the position if it breaks",
        "financial_auditor": "Track these metrics in the next financial report and reduce the position if they worsen",
        "valuation_modeler": "Build the position in tranches and size take-profit/stop-loss by the valuation gap",
        "macro_intelligence": "Cap total exposure and track rates, FX and policy changes",
        "catalyst_detective": "Follow the event and keep the position small until it resolves",
    },
    mitigation_default="Keep monitoring this risk and reduce the position if it materialises",
    weighted="{label} {confidence}",
    weighted_coverage="{label} {confidence}x{coverage}",
    coverage_note=", data coverage {coverage}",
    risk_with_sources="{risk} ({sources})",
    bull_point="{label} is bullish ({signal}), confidence {confidence}{coverage}",
    bull_thesis=(
        "{symbol} bull case: {count}/{total} experts are bullish ({experts}), total confidence {total_confidence}."
    ),
    bull_thesis_none=(
        "{symbol} bull case: none of the {total} experts is bullish; the bull side has no direct evidence."
    ),
    bear_point="{label} is bearish ({signal}), confidence {confidence}{coverage}",
    bear_thesis=(
        "{symbol} bear case: {count}/{total} experts are bearish ({experts}), total confidence {total_confidence}."
    ),
    bear_thesis_none=(
        "{symbol} bear case: none of the {total} experts is bearish; the bear side has no direct evidence."
    ),
    strength="{label} is bullish ({signal}, confidence {confidence}): {evidence}",
    disagreement=(
        "{bull_label} is bullish ({bull_confidence}) while {bear_label} is bearish ({bear_confidence}): "
        '"{bull_evidence}" versus "{bear_evidence}"'
    ),
    tally=(
        "Evidence weight = confidence x data coverage. Bull side: {bull}, total {bull_total}; "
        "bear side: {bear}, total {bear_total}; neutral: {neutral}, total {neutral_total}. "
        "Balance = (bull - bear) / (bull + bear + {dilution} x neutral) = ({bull_total} - {bear_total}) / "
        "({bull_total} + {bear_total} + {dilution} x {neutral_total}) = {balance}; strength of the {leading} side "
        "(agreeing experts corroborate each other) = {strength}; net score = balance x strength = {score}."
    ),
    side_names={"BULLISH": "bull", "BEARISH": "bear"},
    coverage=(
        "Coverage: {answered} of {asked} experts answered (failed: {failed}), {share} % of the evidence "
        "(sum of data coverage / experts asked)."
    ),
    verdict_bullish=(
        "The net score is at least +{threshold}, so the bull side wins: neutral experts temper aligned evidence "
        "but do not cancel it; confidence = |net score| x missing-evidence factor {factor} = {confidence}."
    ),
    verdict_bearish=(
        "The net score is at most -{threshold}, so the bear side wins: neutral experts temper aligned evidence "
        "but do not cancel it; confidence = |net score| x missing-evidence factor {factor} = {confidence}."
    ),
    verdict_neutral=(
        "The net score lies between -{threshold} and +{threshold}, so neither side prevails and the direction is "
        "neutral; confidence = 0.5 x (1 - |net score| / {threshold}) x missing-evidence factor {factor} = "
        "{confidence}."
    ),
)

_TEXTS: dict[str, Texts] = {"zh": ZH, "en": EN}


def texts_for(language: Language) -> Texts:
    return _TEXTS[language]


def expert_label(texts: Texts, expert: str) -> str:
    return texts.expert_labels.get(expert, expert)


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
