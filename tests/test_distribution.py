"""The distribution a user installs: its name is ours, and every install line says it.

``kg-memory`` on the package index is an unrelated project ("memory for coding agents"), so
``pip install 'kg-memory[mcp]'`` installed the wrong thing. The distribution is named
``kg-memory-bitemporal``; the import name stays ``kg_memory`` and the command ``kg-memory``.
"""

from __future__ import annotations

import importlib.metadata
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Names on the package index that belong to other projects (looked up on 2026-12-05): a
# rename back to one of them would send every reader's ``pip install`` elsewhere.
TAKEN = {"kg-memory"}

INSTALL = re.compile(r"pip install (?:-[\w-]+ )*['\"]?([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])?")


def _name() -> str:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return str(project["name"])


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _texts() -> list[Path]:
    paths = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    paths += sorted((ROOT / "kg_memory").rglob("*.py"))
    paths += sorted((ROOT / "notebooks").glob("*.ipynb"))
    return paths


def test_the_distribution_name_is_not_anothers() -> None:
    assert _normal(_name()) not in {_normal(n) for n in TAKEN}


def test_every_install_line_names_this_distribution() -> None:
    ours = _normal(_name())
    wrong: list[str] = []
    seen = 0
    for path in _texts():
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in INSTALL.finditer(line):
                target = match.group(1)
                if target.startswith((".", "/")) or target.endswith((".whl", ".txt")):
                    continue  # a path, a wheel file or a requirements file, not a name
                if match.group(2) is None and _normal(target) != ours:
                    continue  # another package by its own name (pip install jupyter, ...)
                seen += 1
                if _normal(target) != ours:
                    wrong.append(f"{path.relative_to(ROOT)}:{n}: {match.group(0)}")
    assert seen > 0, "no install line found: the pattern no longer matches the docs"
    assert wrong == []


def test_the_installed_distribution_provides_the_package() -> None:
    providers = importlib.metadata.packages_distributions().get("kg_memory", [])
    assert _normal(_name()) in {_normal(p) for p in providers}


def test_version_prints_the_distribution_and_exits_zero() -> None:
    done = subprocess.run([sys.executable, "-m", "kg_memory.cli", "--version"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    version = importlib.metadata.version(_name())
    assert done.stdout.strip() == f"kg-memory {version} ({_name()})"
