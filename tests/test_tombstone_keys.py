"""Tombstone keys are a stored format: every key an older run wrote must still match.

Rule protected: a node key is HMAC-SHA256 of ``node\\x00`` + ``json.dumps([scope, id])``, an
operation key the same with ``operation``, under the store's secret, as hex: the keys written
out by hand for speed (:func:`kg_memory.domain.forgetting.node_key`) are those bytes for any
text, escapes and lone surrogates included, or a replay of forgotten input would no longer
be refused and an entity's reference would no longer name its tombstone.
"""

from __future__ import annotations

import hashlib
import hmac
import json

from hypothesis import example, given
from hypothesis import strategies as st

from kg_memory.domain.forgetting import node_key, operation_key, tombstone_key


def _reference(secret: bytes, kind: str, scope: str, name: str) -> str:
    text = f"{kind}\x00{json.dumps([scope, name])}".encode()
    return hmac.new(secret, text, hashlib.sha256).hexdigest()


@given(st.binary(min_size=1, max_size=64), st.text(), st.text())
@example(b"k", "u1", "\ud800 \"quoted\" \\ \x00 é ☃ 𝄞")
@example(b"k", "", "")
def test_node_and_operation_keys_are_the_stored_format(secret: bytes, scope: str,
                                                      name: str) -> None:
    assert node_key(secret, scope, name) == _reference(secret, "node", scope, name)
    assert operation_key(secret, scope, name) == _reference(secret, "operation", scope, name)


def test_a_key_depends_on_the_secret_the_kind_and_both_parts() -> None:
    keys = {node_key(b"k", "u1", "a"), node_key(b"j", "u1", "a"), node_key(b"k", "u2", "a"),
            node_key(b"k", "u1", "b"), operation_key(b"k", "u1", "a"),
            tombstone_key(b"k", "node", "a")}
    assert len(keys) == 6


@given(st.binary(max_size=200), st.text())
@example(b"", "x")
@example(b"k" * 64, "x")
@example(b"k" * 65, "x")
def test_a_key_is_hmac_sha256_under_a_secret_of_any_length(secret: bytes, text: str) -> None:
    # The HMAC is written out over the secret's cached pads (issue 28, session 20): the same
    # bytes as the library's, a secret longer than SHA-256's block hashed first as RFC 2104 says.
    expected = hmac.new(secret, f"evidence\x00{text}".encode(), hashlib.sha256).hexdigest()
    assert tombstone_key(secret, "evidence", text) == expected
    assert tombstone_key(secret, "evidence", text) == expected  # from the cached pads
