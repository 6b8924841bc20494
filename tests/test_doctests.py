"""The examples in docstrings are kept true, in every module of the package."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import kg_memory

MODULES = [
    kg_memory.__name__,
    *sorted(
        m.name
        for m in pkgutil.walk_packages(kg_memory.__path__, prefix=f"{kg_memory.__name__}.")
        if not m.name.endswith("__main__")
    ),
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
