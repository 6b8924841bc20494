"""What ``KgMemoryStore`` refuses before anything is written, as kg-memory's typed errors.

* A store whose source may not use its channel: the deployment's channel policy decides once,
  at construction (a store's source is configuration, not input: every write of a misconfigured
  store would be refused). The error says which channels that source may use, so
  ``KgMemoryStore(memory, source="restaurant")`` (the restaurant over the user's chat) points at
  ``channel="webhook"``.
* A put whose value is not a dict (LangGraph's items are documents): an
  :class:`~kg_memory.InvalidArgument` naming the item, not Python's ``dict()`` failure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kg_memory import Channel, InvalidArgument, Memory, PolicyError

__all__ = ["item_value", "open_inlet"]


def _usable(memory: Memory, source: str) -> list[str]:
    usable = []
    for channel in Channel:
        try:
            memory.inlet(source, channel)
        except PolicyError:
            continue
        usable.append(channel.value)
    return usable


def open_inlet(memory: Memory, source: str, channel: Channel) -> None:
    """Check that ``source`` may write over ``channel``; a ``PolicyError`` saying what may."""
    try:
        memory.inlet(source, channel)
    except PolicyError as exc:
        usable = _usable(memory, source)
        hint = (f"{source!r} may write over {', '.join(usable)}: pass channel={usable[0]!r}"
                if usable else f"{source!r} may not write over any channel")
        raise PolicyError(f"KgMemoryStore(source={source!r}, channel={channel.value!r}): "
                          f"{exc}; {hint}") from None


def item_value(namespace: Sequence[str], key: str, value: object) -> None:
    """Check a put's value: a dict, or ``None`` for a delete."""
    if value is None or isinstance(value, Mapping):
        return
    raise InvalidArgument(
        f"put {tuple(namespace)} {key!r}: an item's value is a dict, not "
        f"{type(value).__name__} ({value!r:.40}); wrap it as {{'value': ...}}", field="value")
