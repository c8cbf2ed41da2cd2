"""The sessions store: SQLAlchemy 2 async models, repository, Alembic migrations, start-up."""
