"""Write policies as data: what is admitted, how a conflict is reconciled, how trust decays.

The writer gate (:mod:`kg_memory.domain.gate`) decides *who* may write; a :class:`WritePolicy`
decides *what* is worth writing and *when a new value wins* (seeds 001 and 003). It is a list of
per-predicate rules, loaded from JSON like the writer gate, first matching glob wins:

>>> policy = WritePolicy.model_validate({"name": "shop", "mode": "reconcile", "rules": [
...     {"predicates": ["gift_wrap"], "gate": 0.7, "half_life_days": 11},
...     {"predicates": ["*"], "gate": 0.6}]})
>>> policy.rule_for("gift_wrap").gate, policy.rule_for("format").gate
(0.7, 0.6)

``mode`` is one of ``overwrite`` (every admitted value supersedes at once: today's behaviour and
the default), ``reconcile`` (seed 003's confirm-before-replace) and ``append`` (keep every value
side by side and leave the choice to retrieval: a baseline, never a default).
"""

from __future__ import annotations

import json
from enum import StrEnum
from fnmatch import fnmatchcase
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from kg_memory.domain.errors import PolicyError
from kg_memory.domain.limits import WindowDays, unique_keys

__all__ = ["Mode", "PredicateRule", "Retention", "ScopeLabel", "WritePolicy"]


class Mode(StrEnum):
    APPEND = "append"
    OVERWRITE = "overwrite"
    RECONCILE = "reconcile"


class ScopeLabel(StrEnum):
    """How long a statement is meant to hold, as extraction labelled it.

    "Wrap this one as a gift" is a ``request``; "use express shipping this week" a ``session``;
    "I prefer ebooks" is ``durable``. Only durable statements become long-term memory when the
    one-off filter is on.
    """

    REQUEST = "request"
    SESSION = "session"
    DURABLE = "durable"


class PredicateRule(BaseModel):
    """The policy for predicates matching ``predicates`` (globs).

    * ``gate``: candidates below this extraction confidence are refused.
    * ``durable_only``: refuse ``request`` and ``session`` statements (the one-off filter).
    * ``window_days`` / ``margin``: a conflicting value replaces the current one when a second
      independent episode mentions it within the window, or when it is ``margin`` more
      confident (reconcile mode only).
    * ``half_life_days`` / ``floor``: recall multiplies confidence by
      ``0.5 ** (age / half_life)``; below ``floor`` the memory is not served (``None``: no decay).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    predicates: tuple[str, ...] = ("*",)
    gate: float = Field(default=0.0, ge=0.0, le=1.0)
    durable_only: bool = True
    window_days: WindowDays = 30.0
    margin: float = Field(default=0.25, ge=0.0, le=1.0)
    #: finite: no decay is ``None``, never an infinite half-life (JSON cannot print one back)
    half_life_days: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    floor: float = Field(default=0.25, ge=0.0, le=1.0)

    def matches(self, predicate: str) -> bool:
        return any(fnmatchcase(predicate, p) for p in self.predicates)


class Retention(BaseModel):
    """How many memories a scope keeps (``kg-memory sweep``; the eviction order is
    :mod:`kg_memory.domain.retention`'s) and whether a sweep forgets what it evicts
    (``delete``) or only reports it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    cap: int = Field(ge=0)
    delete: bool = False


class WritePolicy(BaseModel):
    """A named, versioned write policy; predicates no rule matches get ``PredicateRule()``.
    ``retention`` (none by default) is what a sweep keeps."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = "custom"
    version: int = 1
    mode: Mode = Mode.OVERWRITE
    rules: tuple[PredicateRule, ...] = ()
    retention: Retention | None = None

    def rule_for(self, predicate: str) -> PredicateRule:
        for rule in self.rules:
            if rule.matches(predicate):
                return rule
        return PredicateRule()

    @classmethod
    def default(cls) -> WritePolicy:
        """Today's behaviour: no confidence gate, no decay, every admitted value supersedes.

        One-offs are still kept out of long-term memory, which changes nothing for input that
        carries no scope label (unlabelled candidates are durable).
        """
        return cls(name="default")

    @classmethod
    def load(cls, path: Path) -> WritePolicy:
        """Read a policy from a JSON file shaped like ``WritePolicy.default().model_dump()``."""
        try:
            return cls.model_validate(json.loads(path.read_text(encoding="utf-8"),
                                                 object_pairs_hook=unique_keys))
        except (OSError, ValueError, ValidationError) as exc:
            raise PolicyError(f"write policy {path}: {exc}") from exc
