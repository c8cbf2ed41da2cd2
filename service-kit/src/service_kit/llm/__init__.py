"""OpenAI-compatible LLM client kit shared by the analysing services (infrastructure only)."""
