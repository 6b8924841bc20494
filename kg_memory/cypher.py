"""The Cypher the Neo4j adapter runs, read from ``cypher/<name>.cypher``.

Every query lives in its own file at the top of the repository (``cypher/``), one query per file,
with ``$parameters`` only: nothing is ever formatted into a query. Each file starts with comments
saying what it does and an example ``:params {...}`` line (Browser's command that sets the
parameters): run that line in Neo4j Browser, then paste the file as it is.

The one exception to "one query per file" is ``schema.cypher``: its statements are separated by
semicolons, :func:`statements` splits them, and Browser's multi-statement editor runs the file as
pasted. ``wipe.cypher`` batches its deletes, so Browser needs it prefixed with ``:auto``.

>>> "MATCH (a:Assertion)" in load("asof")
True
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources
from pathlib import Path

__all__ = ["CYPHER_DIR", "load", "names", "statements"]

#: ``cypher/`` beside the package (a source checkout or an editable install).
CYPHER_DIR = Path(__file__).resolve().parents[1] / "cypher"

_NAME = re.compile(r"[a-z0-9_]+")
_COMMENT = re.compile(r"^\s*//.*$", re.MULTILINE)


def _package_dir() -> Path | None:
    """``kg_memory/queries/`` as package data, for an install that ships the files there."""
    try:
        candidate = Path(str(resources.files("kg_memory") / "queries"))
    except (ModuleNotFoundError, TypeError):  # pragma: no cover - zipped or odd installs
        return None
    return candidate if candidate.is_dir() else None


def _directory() -> Path:
    if CYPHER_DIR.is_dir():
        return CYPHER_DIR
    packaged = _package_dir()
    if packaged is None:
        raise FileNotFoundError(
            f"no Cypher query folder: neither {CYPHER_DIR} nor kg_memory/queries/ exists"
        )
    return packaged


def names() -> list[str]:
    """Every query file's name (without ``.cypher``), sorted."""
    return sorted(p.stem for p in _directory().glob("*.cypher"))


@cache
def load(name: str) -> str:
    """The text of ``cypher/<name>.cypher``, read once.

    The files are part of the source tree, never built from values: the spirit of the
    driver's ``LiteralString`` query type (mypy treats ``LiteralString`` as ``str``).
    """
    if not _NAME.fullmatch(name):
        raise ValueError(f"not a query name: {name!r}")
    path = _directory() / f"{name}.cypher"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FileNotFoundError(f"no Cypher query {name!r} at {path}") from None
    return text.strip()


@cache
def statements(name: str) -> tuple[str, ...]:
    """The statements of a multi-statement file (``schema``): comments dropped, split on ``;``."""
    body = _COMMENT.sub("", load(name))
    return tuple(part.strip() for part in body.split(";") if part.strip())
