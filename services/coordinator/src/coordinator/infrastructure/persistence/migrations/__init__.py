"""Alembic environment of the sessions store, shipped inside the package so the service migrates itself."""
