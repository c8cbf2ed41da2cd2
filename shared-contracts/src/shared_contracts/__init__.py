"""The published language of the stock research services.

Pure wire models and vocabularies live at the top level (``experts``, ``research``, ``projection``,
``debate``, ``judge``, ``coordinator``, ``problems``, ``engine``); any layer of any service may import them.
``shared_contracts.service`` (FastAPI edge kit) and ``shared_contracts.llm`` (OpenAI-compatible client kit)
are infrastructure/presentation helpers and must not be imported by a domain or application layer.
"""
