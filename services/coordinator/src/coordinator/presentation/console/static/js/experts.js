// What each expert's result says, read the way the debate reads it (shared_contracts.projection's mapping).

import { joinClauses } from "./i18n.js";

const MAPPING = {
  technical_analyst: ["signal", "confidence", "summary_reasoning", "risk_warning"],
  financial_auditor: ["signal", "confidence", "summary_reasoning", "risk_warning"],
  valuation_modeler: ["valuation_verdict", "confidence_score", "reasoning_summary", "risk_factors"],
  macro_intelligence: ["macro_environment", "confidence_score", "macro_summary", "key_risks"],
  catalyst_detective: ["result.catalyst_assessment", "result.confidence_score", "result.catalyst_summary", "result.negative_catalysts"],
};

function read(data, path) {
  return path.split(".").reduce((value, key) => (value && typeof value === "object" ? value[key] : undefined), data);
}

function risks(value) {
  if (Array.isArray(value)) return joinClauses(value.map((v) => (typeof v === "object" && v ? v.description || v.risk || v.title || JSON.stringify(v) : String(v))));
  return value === undefined || value === null ? "" : String(value);
}

/** {signal, confidence, reasoning, risk, dataGaps, staleness, asOf} of a successful expert's `data`. */
export function summaryOf(expert, data) {
  const [signal, confidence, reasoning, risk] = MAPPING[expert] || MAPPING.technical_analyst;
  const d = data || {};
  return {
    signal: read(d, signal) ?? d.signal,
    confidence: read(d, confidence) ?? d.confidence,
    reasoning: read(d, reasoning) ?? d.summary_reasoning ?? "",
    risk: risks(read(d, risk) ?? d.risk_warning),
    dataGaps: Array.isArray(d.data_gaps) ? d.data_gaps : [],
    staleness: Array.isArray(d.staleness) ? d.staleness : [],
    asOf: d.as_of,
    numbersCheck: d.numbers_check,
  };
}
