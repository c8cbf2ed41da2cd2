"""The valuation_modeler engines (rules; prompts for the LLM adapter in prompts/)."""
