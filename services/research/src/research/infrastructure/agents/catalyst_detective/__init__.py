"""The catalyst_detective engines (rules; prompts for the LLM adapter in prompts/)."""
