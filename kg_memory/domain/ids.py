"""The ids an ingest mints, derived from what the sender chose, so a redelivery names the same
nodes: pure functions of the scope, the operation id and a candidate's position.

>>> episode_id_for("u1", "op-1") == episode_id_for("u1", "op-1") != episode_id_for("u2", "op-1")
True
>>> assertion_id_for("ep_x", 0).startswith("as_")
True
"""

from __future__ import annotations

import hashlib

__all__ = ["assertion_id_for", "episode_id_for"]


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def episode_id_for(scope: str, operation_id: str) -> str:
    """Episode ids derive from the scope and operation id, so a redelivery names the same
    episode, and another tenant's use of the same operation id names a different one.

    Not cached, though a batch's prefetch names each episode before its write path does: a
    cache would keep caller-chosen operation ids in memory after their episode is forgotten,
    for about a microsecond of hashing saved."""
    return f"ep_{_digest(f'{scope}{chr(31)}{operation_id}')}"


def assertion_id_for(episode_id: str, index: int) -> str:
    """The id of the assertion an episode's ``index``-th candidate writes."""
    return f"as_{_digest(f'{episode_id}/{index}')}"
