"""The technical_analyst engines (rules; prompts for the LLM adapter in prompts/)."""
