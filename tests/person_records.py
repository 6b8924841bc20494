"""One person record and a mention builder, shared by the resolution rule tests (round 2's
families and twins, round 3's switches): the same whole record everywhere, so a test that
changes one field shows exactly what that field does."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from kg_memory.domain.resolution import Context, Identifier, IdentifierKind, Mention

__all__ = ["RECORD", "T", "said"]

T = datetime(2026, 1, 1, tzinfo=UTC)
RECORD = {
    "birth_date": "1980-01-02",
    "street_number": "12",
    "street": "giblin street",
    "locality": "canberra",
    "postcode": "2600",
    "state": "act",
}


def said(i: int, name: str, *ids: str, **context: str) -> Mention:
    """Mention ``i`` of ``name`` (a minute after the one before), with national ids ``ids``."""
    return Mention(
        mention_id=f"m{i}",
        name=name,
        episode_id=f"e{i}",
        at=T + timedelta(minutes=i),
        context=Context.from_mapping(context),
        identifiers=tuple(Identifier(kind=IdentifierKind.NATIONAL_ID, value=v) for v in ids),
    )
