"""The six baseline retention policies of the dinner study, beside the real memory graph.

These model the retention rules memory products document, as seed 000 does: they decide by
time (TTL, disuse) or by comparing an input with what is stored (a perfect contradiction
detector keyed on the fact). None of them knows who may write what. They exist to be compared
with the writer + dependency rows, which run through the real :class:`~kg_memory.Memory`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict, Field

from kg_memory.domain.model import Channel, Value
from kg_memory.domain.record import IngestRecord
from kg_memory.sim.scenario import Scenario

__all__ = ["BASELINES", "BaselineStore", "Item", "Policy", "Settings", "baselines"]


@dataclass(frozen=True)
class Policy:
    slug: str
    title: str
    ttl: int | None = None  # days an item lives without being touched
    refresh_on_read: bool = False
    contradiction: bool = False  # retire the same key's items on a new value
    chat_only: bool = False  # sees only the conversation, not webhooks or timers
    events: bool = False  # an owner's event retires the items that depend on it


class Settings(BaseModel):
    """The lab's two lengths, in days. Seed 000 publishes its table at the defaults."""

    model_config = ConfigDict(frozen=True)

    ttl: int = Field(default=7, ge=1, description="Lifetime of the two TTL policies.")
    unused_days: int = Field(
        default=30, ge=1, description="Disuse window of 'Delete if unused'."
    )


def _days(n: int) -> str:
    return f"{n} day" if n == 1 else f"{n} days"


def baselines(settings: Settings | None = None) -> tuple[Policy, ...]:
    """The six baselines at ``settings``; titles name the lengths, as the seed's table does."""
    s = settings or Settings()
    return (
        Policy("keep", "Keep forever"),
        Policy(
            "ttl-refresh",
            f"TTL {_days(s.ttl)}, refreshed on read",
            ttl=s.ttl,
            refresh_on_read=True,
        ),
        Policy("ttl-fixed", f"TTL {_days(s.ttl)}, fixed", ttl=s.ttl),
        # Disuse is a lease renewed by every read: a refreshed TTL under another name.
        Policy(
            "unused",
            f"Delete if unused for {_days(s.unused_days)}",
            ttl=s.unused_days,
            refresh_on_read=True,
        ),
        Policy("contra-chat", "Contradiction check, chat only", contradiction=True, chat_only=True),
        Policy("contra-all", "Contradiction check, every input", contradiction=True, events=True),
    )


#: The baselines at seed 000's settings (TTL 7 days, disuse window 30 days).
BASELINES: tuple[Policy, ...] = baselines()


@dataclass
class Item:
    key: str
    value: Value
    source: str
    day: int
    depends: tuple[str, ...]
    touched: int
    alive: bool = True


@dataclass
class BaselineStore:
    """A list of items and a policy; ``log`` is the write log in seed 000's words."""

    policy: Policy
    items: list[Item] = field(default_factory=list)
    log: list[tuple[int, str, str, str]] = field(default_factory=list)

    def _expire(self, day: int) -> None:
        if self.policy.ttl is None:
            return
        for item in self.items:
            if item.alive and day - item.touched >= self.policy.ttl:
                item.alive = False

    def feed(self, record: IngestRecord, scenario: Scenario) -> None:
        """Take one input, if this policy can see it."""
        if self.policy.chat_only and record.channel is not Channel.CHAT:
            return
        day = scenario.day_of(record.occurred_at)
        for event in record.events:
            label = f"{event.target}.{event.name}"
            retired = []
            if self.policy.events:
                for item in self.items:
                    if item.alive and event.target in item.depends:
                        item.alive = False
                        retired.append(f"retired {item.key} = {item.value}")
            self.log.append((day, record.source, label, ", ".join(retired) or "ignored"))
        for cand in record.assertions:
            key = scenario.key_of(cand.subject, cand.predicate)
            outcome = "written"
            if self.policy.contradiction:
                for item in self.items:
                    if item.alive and item.key == key and item.value != cand.value:
                        item.alive = False
                        outcome = f"written, replaces {item.key} = {item.value}"
            self.items.append(
                Item(
                    key=key,
                    value=cand.value,
                    source=record.source,
                    day=day,
                    depends=cand.depends_on,
                    touched=day,
                )
            )
            self.log.append((day, record.source, f"{key} = {cand.value}", outcome))

    def read(self, key: str, day: int) -> list[Item]:
        """Items the store returns for ``key`` on ``day``, touching them if the policy says so."""
        self._expire(day)
        found = [i for i in self.items if i.alive and i.key == key]
        if self.policy.refresh_on_read:
            for item in found:
                item.touched = day
        return found

    def alive_on(self, day: int) -> list[Item]:
        self._expire(day)
        return [i for i in self.items if i.alive]
