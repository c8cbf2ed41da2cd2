"""The analysing engines: an LLM adapter and a rules adapter per expert, and the visible fallback."""
