"""Items that say who wrote them: LangGraph's ``Item`` and ``SearchItem`` with ``writer`` and
``kind``.

A LangGraph item is a value under a key, nothing more, so a tool's world fact
``u1.deposit_preapproved = yes`` and the user's own statement of the same slot would come back
alike. Every item :class:`~kg_memory.integrations.langgraph.KgMemoryStore` returns is one of
these: ``item.writer`` is the source that wrote the fact (the channel's, never the text's) and
``item.kind`` its kind (``stated``: the user's statement, recorded by the user or by the agent
in the user's conversation; ``world``: a record of the system that owns it; ``derived``:
computed from other memories). A claim (someone else's words about the user) is never an item.
Both travel in ``item.dict()`` too, beside the value, never inside it, so a value reads back
exactly as it was put.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from langgraph.store.base import Item, SearchItem

from kg_memory import Kind

__all__ = ["AttributedItem", "AttributedSearchItem"]


class AttributedItem(Item):
    """An ``Item`` with the ``writer`` and ``kind`` of the fact it stands for."""

    __slots__ = ("kind", "writer")

    def __init__(self, *, value: dict[str, Any], key: str, namespace: tuple[str, ...],
                 created_at: datetime, updated_at: datetime, writer: str, kind: Kind) -> None:
        super().__init__(value=value, key=key, namespace=namespace, created_at=created_at,
                         updated_at=updated_at)
        self.writer = writer
        self.kind = kind

    def dict(self) -> dict[str, Any]:
        return {**super().dict(), "writer": self.writer, "kind": self.kind.value}


class AttributedSearchItem(SearchItem):
    """A ``SearchItem`` with the ``writer`` and ``kind`` of the fact it stands for."""

    __slots__ = ("kind", "writer")

    def __init__(self, *, value: dict[str, Any], key: str, namespace: tuple[str, ...],
                 created_at: datetime, updated_at: datetime, writer: str, kind: Kind,
                 score: float | None = None) -> None:
        super().__init__(namespace=namespace, key=key, value=value, created_at=created_at,
                         updated_at=updated_at, score=score)
        self.writer = writer
        self.kind = kind

    def dict(self) -> dict[str, Any]:
        return {**super().dict(), "writer": self.writer, "kind": self.kind.value}
