"""The :class:`~kg_memory.domain.resolution.decision.FieldEvidence` of a resolver config's
comparisons: what each field's comparison weighs, as the decision records it."""

from __future__ import annotations

from kg_memory.domain.resolution.comparison import FieldComparison
from kg_memory.domain.resolution.config import ResolverConfig
from kg_memory.domain.resolution.decision import FieldEvidence
from kg_memory.domain.resolution.field import Field, Level

__all__ = ["EvidenceTable", "evidence_table"]


class EvidenceTable:
    """A config's :class:`FieldEvidence` for each comparison, the blank ones shared.

    Most of a candidate's fields carry no detail (every candidate without an email has the
    same MISSING email): one validated instance of each is kept per config and shared. A
    comparison with a detail is nearly always new ("'6019' vs '6091'"), so its evidence is
    built fresh and dies with the decision: keeping it (an LRU of 65,536 did) made every
    new one a long-lived object the garbage collector walked at each full collection, a
    seventh of the store path's CPU (issue 29). The weight is the config's own
    (:meth:`ResolverConfig.weight`), so the same floats, -0.0 included."""

    __slots__ = ("_blank", "_config", "_weights")

    def __init__(self, config: ResolverConfig) -> None:
        self._config = config
        self._blank: dict[FieldComparison, FieldEvidence] = {}
        self._weights: dict[tuple[Field | str, Level, str | None], float] = {}

    def of(self, f: FieldComparison) -> FieldEvidence:
        if f.detail:
            return FieldEvidence(field=f.field, level=f.level, weight=self._weight(f),
                                 detail=f.detail, near=f.near, kind=f.kind)
        found = self._blank.get(f)
        if found is None:
            found = self._blank[f] = FieldEvidence(
                field=f.field, level=f.level, weight=self._weight(f), near=f.near, kind=f.kind)
        return found

    def _weight(self, f: FieldComparison) -> float:
        key = (f.field, f.level, f.kind)
        weight = self._weights.get(key)
        if weight is None:
            weight = self._weights[key] = self._config.weight(f.field, f.level, f.kind)
        return weight


#: id(config) -> its evidence table; the table holds the config, so an id is never reused
#: while its entry lives. Few configs exist in a process (tests make a few dozen).
_EVIDENCE: dict[int, EvidenceTable] = {}


def evidence_table(config: ResolverConfig) -> EvidenceTable:
    """``config``'s table, made on first use (a config is frozen: its weights never change)."""
    table = _EVIDENCE.get(id(config))
    if table is None or table._config is not config:
        if len(_EVIDENCE) >= 64:
            _EVIDENCE.clear()
        table = _EVIDENCE[id(config)] = EvidenceTable(config)
    return table
