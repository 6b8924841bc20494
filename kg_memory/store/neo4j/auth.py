"""Where the Neo4j adapter's credentials come from: the environment or a private file.

Never from the repository, never from a URI that ends up in logs. In order:

1. explicit ``user`` / ``password`` arguments (an application that holds its own secrets);
2. ``$NEO4J_USER`` (default ``neo4j``) and ``$NEO4J_PASSWORD``;
3. ``$KG_NEO4J_CONFIG``: a JSON file ``{"user": ..., "password": ...}`` that must live outside
   the kg-memory source tree and be readable by its owner only (like ``~/.ssh`` keys), else it
   is refused rather than used.

No password anywhere means no auth (the local development server runs with auth off). A URI
carrying ``user:password@`` is accepted by the driver but its secret is stripped before the URI
is kept, printed or put in an error (:func:`public_uri`).
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from urllib.parse import unquote, urlsplit, urlunsplit

from kg_memory.domain.errors import StoreUnavailable

__all__ = ["REPOSITORY", "credentials", "public_uri", "redact", "split_uri"]

_PACKAGE = Path(__file__).resolve().parents[2]
#: The source tree this package runs from: the checkout of an editable install, else the
#: installed package itself (a wheel's site-packages is nobody's place for secrets either).
REPOSITORY = _PACKAGE.parent if (_PACKAGE.parent / "pyproject.toml").is_file() else _PACKAGE


def public_uri(uri: str) -> str:
    """``uri`` without any user:password part, fit for logs and reports."""
    parts = urlsplit(uri)
    if "@" not in parts.netloc:
        return uri
    return urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))


def split_uri(uri: str) -> tuple[str, str | None, str | None]:
    """``(public uri, user, password)``: userinfo is taken out so that only the public part
    ever reaches the driver, an error message or :attr:`location`."""
    try:
        parts = urlsplit(uri)
    except ValueError:
        # Not quoted: a malformed URI may still hold a password.
        raise StoreUnavailable(
            "not a valid Neo4j URI (not shown: it may hold a password)") from None
    if "@" not in parts.netloc:
        return uri, None, None
    userinfo = parts.netloc.rsplit("@", 1)[0]
    user, _, password = userinfo.partition(":")
    return public_uri(uri), unquote(user) or None, unquote(password) or None


def redact(text: str, auth: tuple[str, str] | None) -> str:
    """``text`` with the password replaced, for messages built from a driver's errors."""
    if auth is None or not auth[1]:
        return text
    return text.replace(auth[1], "***")


def _from_file(path: Path) -> tuple[str | None, str | None]:
    resolved = path.expanduser().resolve()
    if resolved.is_relative_to(REPOSITORY):
        raise StoreUnavailable(
            f"Neo4j credentials file {path} is inside the kg-memory source tree; keep secrets "
            "outside the repository (e.g. ~/.config/kg-memory/neo4j.json)")
    try:
        mode = resolved.stat().st_mode
        data = json.loads(resolved.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        # The path and the kind of failure only: a parse error could quote the file's text.
        raise StoreUnavailable(
            f"cannot read Neo4j credentials file {path}: {type(exc).__name__}") from None
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise StoreUnavailable(
            f"Neo4j credentials file {path} is readable by others; chmod 600 it")
    if not isinstance(data, dict):
        raise StoreUnavailable(f"Neo4j credentials file {path} must hold a JSON object")
    user, password = data.get("user"), data.get("password")
    return (str(user) if user else None, str(password) if password else None)


def credentials(user: str | None, password: str | None) -> tuple[str, str] | None:
    """The ``(user, password)`` to connect with, or ``None`` for no auth."""
    file_user: str | None = None
    if password is None:
        password = os.environ.get("NEO4J_PASSWORD") or None
    if password is None and os.environ.get("KG_NEO4J_CONFIG"):
        file_user, password = _from_file(Path(os.environ["KG_NEO4J_CONFIG"]))
    if user is None:
        user = os.environ.get("NEO4J_USER") or file_user or "neo4j"
    return (user, password) if password else None
