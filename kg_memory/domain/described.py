"""What an ingest line may say to describe an entity, checked by one rule wherever it is said.

A ``resolve`` mention and an ``entities`` declaration both carry ``identifiers`` (a kind, such
as ``user_id``, mapped to a value) and ``context`` (``employer``, ``birth_date``,
``custom.<name>``...): the resolver matches later mentions on both, so both are refused the
same way when a key is unknown or a value is empty, as the line is parsed (a late error would
abort the episode with no line or field, and a dropped key would lose evidence).
"""

from __future__ import annotations

from kg_memory.domain.resolution.mention import Context, IdentifierKind

__all__ = ["check_context", "check_identifiers"]


def check_identifiers(value: dict[str, str]) -> dict[str, str]:
    """``value`` when every kind is an :class:`IdentifierKind` and no value is blank."""
    kinds = [k.value for k in IdentifierKind]
    for kind, text in value.items():
        if kind not in kinds:
            raise ValueError(f"unknown identifier kind {kind!r}; one of {', '.join(kinds)}")
        if not text.strip():
            raise ValueError(f"identifier {kind!r} is empty")
    return value


def check_context(value: dict[str, str]) -> dict[str, str]:
    """``value`` when every key is a context key (the rule of
    :func:`~kg_memory.domain.resolution.mention.unknown_context_key`)."""
    Context.from_mapping(value)  # the one rule: raises naming the first unknown key
    return value
