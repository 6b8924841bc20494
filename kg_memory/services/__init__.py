"""Use cases over the store protocol: one module per use case."""
