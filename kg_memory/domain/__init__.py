"""The domain layer: frozen models and pure rules (no store, no clock)."""
