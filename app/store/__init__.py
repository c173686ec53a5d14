"""Persistence: SQLAlchemy 2 async models, the engine/session setup and small repositories."""
