"""The published language of the stock research services: wire models, problem codes and the scoring
definitions a client or the evaluation needs (``experts``, ``research``, ``projection``, ``debate``, ``judge``,
``coordinator``, ``problems``, ``errors``, ``scoring``, ...). It depends on pydantic only; any layer of any
service may import it.

Example::

    from shared_contracts.research import ExpertRequest
"""
