"""The HTTP paths the end-to-end tests and the benchmarks call (the contracts of record, ARCHITECTURE.md)."""

RESEARCH = "/api/v1/coordinator/research"
SESSIONS = "/api/v1/coordinator/sessions"
EXPERT_PATH = "/api/v1/research/experts/{expert}"
DEBATE_RUN = "/api/v1/debate/run"
JUDGE_VERDICT = "/api/v1/judge/verdict"
