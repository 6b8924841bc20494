"""Optional dependencies: a clear message when one is missing, not a bare import error."""

from __future__ import annotations

import importlib
from types import ModuleType

from kg_memory import ExtraMissing

__all__ = ["require"]


def require(module: str, *, extra: str, feature: str) -> ModuleType:
    """Import ``module``, or raise :class:`~kg_memory.ExtraMissing` saying which extra brings it.

    >>> require("json", extra="none", feature="JSON").__name__
    'json'
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ExtraMissing(
            f"{feature} needs the optional package {module!r}, which is not installed: "
            f"pip install 'kg-memory-bitemporal[{extra}]'"
        ) from exc
