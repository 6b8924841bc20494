"""A generated, labelled corpus for entity resolution: seeded, deterministic, committed.

Each scope (one user's memory) holds a handful of people the memory knows, as
:class:`~kg_memory.domain.resolution.profile.EntityProfile` values, and mentions to resolve, each
labelled with the entity it really refers to (``None`` for someone the memory has never seen).
The label sits beside the mention (:class:`~kg_memory.bench.resolution.labelled.LabelledMention`),
never inside it. Five slices (:mod:`~kg_memory.bench.resolution.corpus_slices`), each a known way
resolvers fail:

* ``same_name``: two to four different people share one full name (half of them common names),
  plus newcomers with that name, 40% of whom share a city, role or relation with a known one;
* ``nicknames``: Bob for Robert, Liz for Elizabeth, "Jo" meaning Joanna or Joseph, and a
  newcomer whose name is a nickname of a known person's;
* ``typos``: misspelt given or family names, and a newcomer one letter from a known name
  (Paula/Paulo);
* ``shared_identifiers``: a household phone, a team inbox, a second email, a rival user id;
* ``movers``: people who moved city (half of the moves unknown to the memory), mentions from
  before the move, and a namesake living in the mover's new city.

How much a mention reveals is the mention model of :mod:`~kg_memory.bench.resolution.corpus_world`:
mostly two or three context attributes, sometimes one, rarely none; an identifier in 18% of
mentions and co-mentioned entities in 45%; 8% carry a value the memory lacks (news or stale
memory). Speakers say which namesake they mean 85% of the time, and always when introducing a
newcomer who shares a known person's name. Two assumptions keep the slices fair rather than
easy: people who could be taken for each other never share an employer or a project (in a
world larger than these pools two John Smiths rarely do), while cities, roles and relations may
coincide, and often do.

:func:`write_corpus` and :func:`load_corpus` round-trip the JSONL files under
``fixtures/resolution/corpus``; regenerating with the same seed gives identical bytes
(``python -m kg_memory.domain.resolution corpus fixtures/resolution/corpus``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Final

from pydantic import BaseModel, ConfigDict

from kg_memory.bench.resolution.corpus_pools import FAMILY_NAMES, GIVEN_NAMES
from kg_memory.bench.resolution.corpus_slices import SLICES
from kg_memory.bench.resolution.corpus_world import SimScope
from kg_memory.bench.resolution.labelled import LabelledMention, Slice
from kg_memory.domain.resolution.profile import EntityProfile

__all__ = [
    "CORPUS_VERSION",
    "DEFAULT_SEED",
    "Corpus",
    "LabelledMention",
    "Slice",
    "corpus_files",
    "generate_corpus",
    "load_corpus",
    "write_corpus",
]

CORPUS_VERSION: Final = "resolution-corpus-1"
#: The committed corpus's seed. It was not used while tuning the resolver (seeds 1-4 were).
DEFAULT_SEED: Final = 730518
_PROFILES, _MENTIONS = "profiles.jsonl", "mentions.jsonl"


class Corpus(BaseModel):
    """Profiles (what each scope's memory knows) and the labelled mentions to resolve."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    version: str = CORPUS_VERSION
    seed: int
    profiles: tuple[EntityProfile, ...]
    mentions: tuple[LabelledMention, ...]


def generate_corpus(seed: int = DEFAULT_SEED) -> Corpus:
    """Generate the corpus. Pure and deterministic: the same seed gives the same corpus."""
    profiles: list[EntityProfile] = []
    mentions: list[LabelledMention] = []
    for slice_, build, scopes in SLICES:
        for i in range(scopes):
            scope = SimScope(seed, f"{slice_.value}-{i:03d}")
            for _ in range(3):  # bystanders: other people the user knows
                scope.person(scope.rng.choice(GIVEN_NAMES), scope.rng.choice(FAMILY_NAMES))
            build(scope)
            profiles.extend(p.profile(scope.name) for p in scope.people)
            mentions.extend(scope.mentions)
    return Corpus(seed=seed, profiles=tuple(profiles), mentions=tuple(mentions))


def _lines(models: Iterator[BaseModel]) -> str:
    return "".join(
        json.dumps(
            m.model_dump(mode="json", exclude_defaults=True), sort_keys=True, separators=(",", ":")
        )
        + "\n"
        for m in models
    )


def corpus_files(corpus: Corpus) -> dict[str, str]:
    """The corpus as file name -> JSONL text (what :func:`write_corpus` writes)."""
    header = {"version": corpus.version, "seed": corpus.seed}
    return {
        "manifest.json": json.dumps(header, sort_keys=True, indent=2) + "\n",
        _PROFILES: _lines(iter(corpus.profiles)),
        _MENTIONS: _lines(iter(corpus.mentions)),
    }


def write_corpus(corpus: Corpus, directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for name, text in corpus_files(corpus).items():
        (directory / name).write_text(text, encoding="utf-8")


def load_corpus(directory: Path) -> Corpus:
    header = json.loads((directory / "manifest.json").read_text(encoding="utf-8"))

    def rows(name: str) -> list[str]:
        return (directory / name).read_text(encoding="utf-8").splitlines()

    return Corpus(
        version=header["version"],
        seed=header["seed"],
        profiles=tuple(EntityProfile.model_validate_json(r) for r in rows(_PROFILES)),
        mentions=tuple(LabelledMention.model_validate_json(r) for r in rows(_MENTIONS)),
    )
