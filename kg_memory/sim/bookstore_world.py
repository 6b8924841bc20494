"""Seed 003's synthetic bookstore: readers, their six facts, and how they talk.

Belgavi's Book Store remembers six facts per reader. Each reader talks to the assistant on
about 45% of days. With drift on each fact changes about monthly (a daily hazard of 1/30; off,
about twice a year), and a reader mentions a change unprompted at the next conversation 60% of
the time. Extraction is a noisy model call: a correct extraction has confidence ~ N(0.8, 0.1),
a wrong one ~ N(0.52, 0.14) (so a gate at 0.6 removes ~72% of errors and keeps ~98% of correct
writes, as the seed says); one-off requests ("wrap this one as a gift") ~ N(0.74, 0.1);
injected candidates in retrieved text ~ N(0.9, 0.05) in 4% of conversations.

Everything here is a pure function of the seed: the truth timelines and every draw a
conversation makes come from generators seeded by (seed, reader, day), so two policies run on
the same seed meet exactly the same readers saying exactly the same things.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

__all__ = [
    "DAYS",
    "FACTS",
    "INJECTED",
    "ONE_OFF_FACTS",
    "READERS",
    "Extraction",
    "Parameters",
    "Timeline",
    "World",
    "build_world",
    "confidence",
]

READERS = 40
DAYS = 90

#: The six facts and the values each can take.
FACTS: dict[str, tuple[str, ...]] = {
    "format": ("paperback", "hardcover", "ebook", "audiobook"),
    "genres": ("mystery", "sci-fi", "romance", "history", "fantasy"),
    "reading_level": ("early", "middle-grade", "young-adult", "adult"),
    "delivery_region": ("north", "south", "east", "west", "central"),
    "gift_wrap": ("never", "always", "ask"),
    "newsletter": ("weekly", "monthly", "never"),
}
#: What an attacker's text asks the assistant to remember (never a reader's real value).
INJECTED: dict[str, str] = {
    "delivery_region": "locker-9 (attacker)",
    "format": "ebook-from-partner-site",
    "newsletter": "daily-promotions",
}
ONE_OFF_FACTS = ("gift_wrap", "delivery_region", "format")


@dataclass(frozen=True)
class Parameters:
    """The model's rates. The seed fixes the first group; the second is our reading of it."""

    talk: float = 0.45
    change_every_drift: float = 30.0
    change_every_calm: float = 180.0
    unprompted: float = 0.6
    corrects: float = 0.7
    injection: float = 0.04
    correct_conf: tuple[float, float] = (0.8, 0.1)
    wrong_conf: tuple[float, float] = (0.52, 0.14)
    one_off_conf: tuple[float, float] = (0.74, 0.1)
    injected_conf: tuple[float, float] = (0.9, 0.05)
    # ours: how often a statement is misheard, how often a reader restates a fact in passing,
    # how often a conversation carries a one-off request, and how many facts it needs
    misheard: float = 0.12
    restates: float = 0.5
    one_off: float = 0.2
    questions: int = 2


@dataclass
class Timeline:
    """One reader's fact over the days: ``values[d]`` is what is true on day ``d``."""

    values: list[str]

    def ever_before(self, value: str, day: int) -> bool:
        return value in self.values[:day]


@dataclass(frozen=True)
class Extraction:
    """What the extractor produced from one statement."""

    value: str
    confidence: float
    misheard: bool


@dataclass
class World:
    seed: int
    drift: bool
    params: Parameters
    truth: dict[tuple[int, str], Timeline] = field(default_factory=dict)
    #: days each reader talks
    talks: dict[int, list[int]] = field(default_factory=dict)

    def rng(self, reader: int, day: int, what: str) -> random.Random:
        """A generator of its own for one reader's day and purpose (common random numbers)."""
        return random.Random(f"{self.seed}/{reader}/{day}/{what}")

    def extract(self, rng: random.Random, fact: str, value: str) -> Extraction:
        """The extractor's reading of a reader saying ``value``: sometimes misheard."""
        if rng.random() < self.params.misheard:
            wrong = rng.choice([v for v in FACTS[fact] if v != value])
            return Extraction(wrong, confidence(rng, self.params.wrong_conf), misheard=True)
        return Extraction(value, confidence(rng, self.params.correct_conf), misheard=False)


def confidence(rng: random.Random, dist: tuple[float, float]) -> float:
    return round(min(1.0, max(0.0, rng.gauss(*dist))), 4)


def build_world(seed: int, *, drift: bool, params: Parameters | None = None,
                readers: int = READERS, days: int = DAYS) -> World:
    """Draw every reader's truth timelines and talking days for ``seed``."""
    p = params or Parameters()
    world = World(seed=seed, drift=drift, params=p)
    hazard = 1.0 / (p.change_every_drift if drift else p.change_every_calm)
    for reader in range(readers):
        rng = random.Random(f"{seed}/{reader}/truth")
        for fact, values in FACTS.items():
            current = rng.choice(values)
            timeline: list[str] = []
            for _ in range(days):
                if timeline and rng.random() < hazard:
                    current = rng.choice([v for v in values if v != current])
                timeline.append(current)
            world.truth[reader, fact] = Timeline(timeline)
        talk = random.Random(f"{seed}/{reader}/talk")
        world.talks[reader] = [d for d in range(days) if talk.random() < p.talk]
    return world
