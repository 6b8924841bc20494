"""The domain layer: frozen models and pure rules (time passed in, no store, no clock)."""
