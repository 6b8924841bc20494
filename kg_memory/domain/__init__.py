"""The domain: frozen models and pure rules.

Everything here is a function of its arguments: ``now`` is passed in, nothing reads a clock,
nothing touches a store. The rules (the writer gate, valid-time supersession, dependency
retirement, forget planning, faithful consolidation, entity resolution) return decisions as
data (a :class:`~kg_memory.domain.change.ChangePlan`, a forget plan, a resolution decision) that
the service layer carries out inside a store transaction. An import-linter contract in
``pyproject.toml`` keeps this package from importing anything of kg-memory outside it.
"""

__all__: list[str] = []
