"""Files the installed commands read: the Cypher library, the fixtures the demo and sims replay,
the Neo4j Browser style and the local Neo4j launcher.

They live at the top of the repository, where people look for them (``cypher/`` for Browser
users, ``fixtures/``, ``docker/``), and the wheel ships the same files as data packages
``kg_memory.resources.<name>`` (see ``[tool.setuptools.package-dir]`` in ``pyproject.toml``).
:func:`path` finds a folder either way: the installed data package, or the source checkout of an
editable install (whose import finder maps only the code packages).

>>> (path("cypher") / "asof.cypher").is_file()
True
"""

from __future__ import annotations

from importlib import import_module
from pathlib import Path

__all__ = ["FOLDERS", "path"]

#: Data package name -> folder in the repository (the same map as pyproject.toml's).
FOLDERS: dict[str, str] = {
    "cypher": "cypher",
    "dinner": "fixtures/dinner",
    "jo_cedar": "fixtures/jo_cedar",
    "browser": "docker/browser",
    "neo4j_local": "docker/neo4j-local",
    "resolution_corpus": "fixtures/resolution/corpus",
}

_CHECKOUT = Path(__file__).resolve().parents[2]


def path(name: str) -> Path:
    """The folder of resource ``name`` (a key of :data:`FOLDERS`) on the file system."""
    if name not in FOLDERS:
        raise KeyError(f"no resource folder {name!r}; known: {', '.join(sorted(FOLDERS))}")
    try:
        module = import_module(f"{__name__}.{name}")
    except ModuleNotFoundError:
        module = None
    if module is not None:
        # A data package without __init__.py is a namespace package: its one location.
        locations = list(getattr(module, "__path__", []))
        if locations and Path(locations[0]).is_dir():
            return Path(locations[0])
    checkout = _CHECKOUT / FOLDERS[name]
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(
        f"resource folder {name!r} is missing: neither the installed package "
        f"{__name__}.{name} nor {checkout} exists"
    )
