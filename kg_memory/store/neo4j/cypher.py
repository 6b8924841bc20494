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
from pathlib import Path

from kg_memory import resources

__all__ = ["load", "names", "statements"]

_NAME = re.compile(r"[a-z0-9_]+")
_COMMENT = re.compile(r"^\s*//.*$", re.MULTILINE)


def _directory() -> Path:
    """``cypher/`` of the repository, shipped in the wheel as ``kg_memory.resources.cypher``."""
    return resources.path("cypher")


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
