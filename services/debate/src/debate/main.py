"""Service entry point: ``uvicorn --factory debate.main:create_app``."""
