"""Service entry point: ``uvicorn --factory research.main:create_app``."""
