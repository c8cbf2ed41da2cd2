"""The macro_intelligence engines (rules; prompts for the LLM adapter in prompts/)."""
