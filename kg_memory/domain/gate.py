"""The writer gate: who may write which kind of memory, as data.

The gate is the check every candidate passes before anything is stored (seed 000). It decides on
the *source the ingest channel established*, never on anything the payload says about itself:

>>> policy = WriterPolicy.default()
>>> admit(policy, source="restaurant", kind=Kind.STATED, subject="u1", predicate="deposit").admitted
False
>>> admit(policy, source="user", kind=Kind.STATED, subject="ana", predicate="diet").admitted
True

Writers in a rule are source names, ``"*"`` for anyone, or ``"owner"`` for a source listed among
the subject entity's owners (a restaurant may report on its own booking).
"""

from __future__ import annotations

import json
from fnmatch import fnmatchcase
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kg_memory.domain.errors import PolicyError
from kg_memory.domain.model import Entity, Kind

__all__ = ["GateDecision", "GateRule", "WriterPolicy", "admit", "may_end"]

OWNER = "owner"


class GateRule(BaseModel):
    """Allow ``writers`` to write ``kind`` for subjects and predicates matching the globs."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Kind
    writers: tuple[str, ...]
    subjects: tuple[str, ...] = ("*",)
    predicates: tuple[str, ...] = ("*",)

    def allows(self, source: str, subject: str, predicate: str, owners: tuple[str, ...]) -> bool:
        writer_ok = any(
            w == "*" or w == source or (w == OWNER and source in owners) for w in self.writers
        )
        return (
            writer_ok
            and any(fnmatchcase(subject, s) for s in self.subjects)
            and any(fnmatchcase(predicate, p) for p in self.predicates)
        )


class WriterPolicy(BaseModel):
    """An ordered list of allow rules; anything no rule allows is refused."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = "custom"
    version: int = 1
    rules: tuple[GateRule, ...] = Field(default=())

    @classmethod
    def default(cls) -> WriterPolicy:
        """Seed 000's rule: only the user's own conversation states facts; claims are refused.

        The agent may write stated facts because it records what the user told it, and world
        facts because it acts (it books the table). Owners report on their own entities.
        """
        return cls(
            name="seed-000",
            version=1,
            rules=(
                GateRule(kind=Kind.STATED, writers=("user", "agent")),
                GateRule(kind=Kind.WORLD, writers=("agent", "tool", "registry", OWNER)),
                GateRule(kind=Kind.DERIVED, writers=("consolidator",)),
            ),
        )

    @classmethod
    def permissive(cls) -> WriterPolicy:
        """Admit everything: the "every input" baselines of the dinner study, never a default."""
        return cls(
            name="permissive",
            rules=tuple(GateRule(kind=k, writers=("*",)) for k in Kind),
        )

    @classmethod
    def load(cls, path: Path) -> WriterPolicy:
        """Read a policy from a JSON file shaped like ``WriterPolicy.default().model_dump()``."""
        try:
            return cls.model_validate(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, json.JSONDecodeError, ValidationError) as exc:
            raise PolicyError(f"writer policy {path}: {exc}") from exc


class GateDecision(BaseModel):
    model_config = ConfigDict(frozen=True)

    admitted: bool
    reason: str


def admit(
    policy: WriterPolicy,
    *,
    source: str,
    kind: Kind,
    subject: str,
    predicate: str,
    owners: tuple[str, ...] = (),
) -> GateDecision:
    """Decide whether ``source`` may write a ``kind`` fact ``subject.predicate``."""
    for rule in policy.rules:
        if rule.kind == kind and rule.allows(source, subject, predicate, owners):
            return GateDecision(admitted=True, reason=f"{policy.name}: {kind.value} by {source}")
    return GateDecision(
        admitted=False, reason=f"{source} may not write {kind.value} {subject}.{predicate}"
    )


def may_end(entity: Entity | None, source: str) -> GateDecision:
    """Whether ``source`` may emit a lifecycle event on ``entity`` (it must own it)."""
    if entity is None:
        return GateDecision(admitted=False, reason="unknown entity")
    if source not in entity.owners:
        return GateDecision(admitted=False, reason=f"{source} does not own {entity.entity_id}")
    return GateDecision(admitted=True, reason=f"{source} owns {entity.entity_id}")
