"""Tombstone keys: what a forget leaves so the forgotten is recognised, never recovered.

A tombstone holds a keyed hash (HMAC-SHA256 under the store's own secret) of what it stands for:
the store that holds the secret can tell that a re-sent episode, a re-used operation id or a late
copy of some evidence was forgotten, and the tombstone says nothing more to anyone (no value,
no text). Each kind hashes its own canonical text, written out here rather than through
``json.dumps`` because a forget run hashes thousands of them.
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from functools import lru_cache
from json.encoder import encode_basestring_ascii as _quoted

from kg_memory.domain.instant import to_micros

__all__ = ["EVIDENCE", "evidence_key", "node_key", "operation_key", "tombstone_key"]

#: The kind of an evidence tombstone (:func:`evidence_key`). Schema 10 and earlier stored
#: ``content`` tombstones, an HMAC over the value under the store's own secret: ``kg-memory
#: migrate`` drops them (see docs/security.md).
EVIDENCE = "evidence"


def tombstone_key(secret: bytes, kind: str, text: str) -> str:
    r"""A keyed hash: recognisable by the store that holds ``secret``, meaningless without it.

    >>> import hmac
    >>> tombstone_key(b"k", "node", "x") == hmac.new(b"k", b"node\x00x", "sha256").hexdigest()
    True
    """
    # HMAC written out over the secret's two padded states, hashed once per secret and copied
    # per key: ``hmac.digest(..., "sha256")`` looks the digest up by name in OpenSSL on every
    # call (most of its 40,000 instructions), once per ingest and thousands of times a forget.
    inner, outer = _pads(secret)
    digest = inner.copy()
    digest.update(f"{kind}\x00{text}".encode())
    result = outer.copy()
    result.update(digest.digest())
    return result.hexdigest()


@lru_cache(maxsize=8)
def _pads(secret: bytes) -> tuple[hashlib._Hash, hashlib._Hash]:
    """SHA-256 already fed the secret's inner and outer pads (RFC 2104): what every key of
    that secret starts from. A secret longer than a block is its digest, as the RFC says."""
    key = hashlib.sha256(secret).digest() if len(secret) > _BLOCK else secret
    key = key.ljust(_BLOCK, b"\0")
    return (hashlib.sha256(key.translate(_INNER)), hashlib.sha256(key.translate(_OUTER)))


_BLOCK = hashlib.sha256().block_size
_INNER = bytes(b ^ 0x36 for b in range(256))
_OUTER = bytes(b ^ 0x5C for b in range(256))


def _pair(first: str, second: str) -> str:
    r"""``json.dumps([first, second])`` written out (ASCII escapes, ", " between): the text
    every stored node and operation key was made from, without the encoder's set-up per call.

    >>> import json
    >>> _pair("u1", "é\x00") == json.dumps(["u1", "é\x00"])
    True
    """
    return f"[{_quoted(first)}, {_quoted(second)}]"


def node_key(secret: bytes, scope: str, node_id: str) -> str:
    """The tombstone key of an erased node (episode, fact, derived record) of ``scope``: a
    check for another scope's id never matches, so it cannot learn that the id was forgotten."""
    return tombstone_key(secret, "node", _pair(scope, node_id))


def operation_key(secret: bytes, scope: str, operation_id: str) -> str:
    """The tombstone key of a forgotten operation id, in its scope: another tenant's use of the
    same id is a different operation and is neither refused nor told about this one."""
    return tombstone_key(secret, "operation", _pair(scope, operation_id))


def evidence_key(
    secret: bytes, scope: str, subject: str, predicate: str, project: str | None,
    occurred_at: datetime,
) -> str:
    r"""The tombstone key of a forgotten fact's evidence: its slot (scope, subject, predicate,
    project) and the instant the evidence occurred, so a late copy of that evidence (the same
    message under another operation id) can be refused.

    Never the value: the store's secret is in the store, so anyone holding the file can
    recompute any key, and a key over the value would confirm a guess of a forgotten
    low-entropy value (a PIN in 10,000 tries). What this key confirms to such a guesser is
    that some fact in that slot, from evidence of that instant, was forgotten.

    >>> from datetime import UTC, datetime, timedelta, timezone
    >>> at = datetime(2026, 1, 5, 9, tzinfo=UTC)
    >>> same = at.astimezone(timezone(timedelta(hours=2)))
    >>> evidence_key(b"k", "u1", "u1", "pin", None, at) == evidence_key(
    ...     b"k", "u1", "u1", "pin", None, same)
    True

    The text hashed is ``json.dumps([scope, subject, predicate, project, micros],
    separators=(",", ":"))`` written out, as :func:`_pair` does (a run hashes one per deleted
    fact, and the encoder's set-up per call was most of each key's cost):

    >>> import json
    >>> _evidence_text("u1", "é\x00", '"p"', "proj", 1) == json.dumps(
    ...     ["u1", "é\x00", '"p"', "proj", 1], separators=(",", ":"))
    True
    >>> _evidence_text("u1", "s", "p", None, -5) == json.dumps(
    ...     ["u1", "s", "p", None, -5], separators=(",", ":"))
    True
    """
    return tombstone_key(secret, EVIDENCE, _evidence_text(
        scope, subject, predicate, project, to_micros(occurred_at)))


def _evidence_text(scope: str, subject: str, predicate: str, project: str | None,
                   micros: int) -> str:
    shown = "null" if project is None else _quoted(project)
    return f"[{_quoted(scope)},{_quoted(subject)},{_quoted(predicate)},{shown},{micros}]"
