"""The service layer: one use case per module, over the store protocol."""
