"""Service entry point: ``uvicorn --factory coordinator.main:create_app``."""
