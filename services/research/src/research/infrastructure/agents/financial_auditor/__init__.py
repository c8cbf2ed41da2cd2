"""The financial_auditor engines (rules; prompts for the LLM adapter in prompts/)."""
