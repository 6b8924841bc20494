"""The mutation score leaves out mutants listed as equivalent; a listed key must still name one.

A key carries its line number, so an edit above it moves the mutant and the stale key would
silently stop excluding anything (and the survivor it meant would count against the score with
no reason given). This test fails instead, naming the key, so the list is fixed with the edit.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def _script() -> ModuleType:
    path = ROOT / ".ci" / "mutation.py"
    spec = importlib.util.spec_from_file_location("kg_mutation_script", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def test_every_listed_equivalent_mutant_is_a_current_mutant() -> None:
    script = _script()
    listed = script._equivalent()
    assert listed, "the list of equivalent mutants is empty or missing"
    current = {mutant.key for module in script.MODULES for mutant in script.mutants_of(module)}
    stale = sorted(key for key in listed if key not in current)
    assert stale == [], f"equivalent keys that name no mutant (lines moved?): {stale}"


def test_every_listed_equivalent_mutant_says_why() -> None:
    for key, reason in _script()._equivalent().items():
        assert len(reason) >= 20, f"{key}: an equivalent mutant needs its reason"
