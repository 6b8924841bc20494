"""Pure rules and frozen models: no store, no clock (``now`` is passed in)."""
