"""Service entry point: ``uvicorn --factory judge.main:create_app``."""
