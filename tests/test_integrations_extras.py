"""Without their extras, the integrations say which extra to install: no bare import error, and
no traceback from the CLI."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import ROOT

BLOCK = "import sys; sys.modules[{module!r}] = None; "


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=120, check=False)


@pytest.mark.parametrize(("module", "package", "extra"), [
    ("mcp", "kg_memory.integrations.mcp", "mcp"),
    ("langgraph.store.base", "kg_memory.integrations.langgraph", "langgraph"),
])
def test_a_missing_extra_names_itself(module: str, package: str, extra: str) -> None:
    done = _python(BLOCK.format(module=module) + f"""
from kg_memory import ExtraMissing
try:
    import {package}
except ExtraMissing as exc:
    assert isinstance(exc, ImportError)
    print(exc)
else:
    raise SystemExit("imported without its extra")
""")
    assert done.returncode == 0, done.stderr
    assert f"pip install 'kg-memory-bitemporal[{extra}]'" in done.stdout


def test_the_mcp_command_without_its_extra_is_one_clear_line() -> None:
    done = _python(BLOCK.format(module="mcp") + """
from kg_memory.cli import main
sys.argv = ["kg-memory", "mcp", "--store", ":memory:", "--scope", "u1"]
main()
""")
    assert done.returncode == 1
    assert "ExtraMissing" in done.stderr
    assert "kg-memory-bitemporal[mcp]" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_rest_of_kg_memory_never_imports_the_extras() -> None:
    done = _python(BLOCK.format(module="mcp") + "sys.modules['langgraph'] = None; "
                   "import kg_memory, kg_memory.cli, kg_memory.integrations; print('ok')")
    assert done.returncode == 0, done.stderr
