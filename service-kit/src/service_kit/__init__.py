"""The kit every service is built on: the FastAPI app factory, problem details, authentication, rate and
body limits, request ids, JSON logs, tracing, metrics, settings, the uvicorn protocol, and the
OpenAI-compatible LLM client (``service_kit.llm``). Presentation and infrastructure layers only.
"""
