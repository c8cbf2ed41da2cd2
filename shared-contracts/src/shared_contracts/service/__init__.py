"""The FastAPI edge kit every service is built on: problem details, request ids, JSON logs,
health/readiness/metrics, settings loading, and the app factory. Presentation/infrastructure only."""
