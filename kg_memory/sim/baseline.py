"""The six baseline retention policies of the dinner study, beside the real memory graph.

These model the retention rules memory products document, as seed 000 does: they decide by
time (TTL, disuse) or by comparing an input with what is stored (a perfect contradiction
detector keyed on the fact). None of them knows who may write what. They exist to be compared
with the writer + dependency rows, which run through the real :class:`~kg_memory.Memory`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kg_memory.domain.model import Channel, Value
from kg_memory.domain.record import IngestRecord
from kg_memory.sim.scenario import Scenario

__all__ = ["BASELINES", "BaselineStore", "Item", "Policy"]


@dataclass(frozen=True)
class Policy:
    slug: str
    title: str
    ttl: int | None = None  # days an item lives without being touched
    refresh_on_read: bool = False
    contradiction: bool = False  # retire the same key's items on a new value
    chat_only: bool = False  # sees only the conversation, not webhooks or timers
    events: bool = False  # an owner's event retires the items that depend on it


BASELINES: tuple[Policy, ...] = (
    Policy("keep", "Keep forever"),
    Policy("ttl-refresh", "TTL 7 days, refreshed on read", ttl=7, refresh_on_read=True),
    Policy("ttl-fixed", "TTL 7 days, fixed", ttl=7),
    Policy("unused", "Delete if unused for 30 days", ttl=30, refresh_on_read=True),
    Policy("contra-chat", "Contradiction check, chat only", contradiction=True, chat_only=True),
    Policy("contra-all", "Contradiction check, every input", contradiction=True, events=True),
)


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
