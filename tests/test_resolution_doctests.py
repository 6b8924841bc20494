"""The examples in the resolution package's docstrings are kept true."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import kg_memory.resolution as package

MODULES = [
    *sorted(f"{package.__name__}.{m.name}" for m in pkgutil.iter_modules(package.__path__)),
    package.__name__,
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
