"""The bookstore lab's four missions (seed 003), each a broken starting store, the seed's
thresholds, and the configuration we found that meets them.

>>> MISSIONS[4].check({"stale": 0.1, "reask": 0.1, "wrong": 0.01, "live_records": 240.0})
[]
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kg_memory.domain.write_policy import Mode
from kg_memory.sim.bookstore import LabConfig

__all__ = ["MISSIONS", "Mission"]

Metrics = dict[str, float]


@dataclass(frozen=True)
class Mission:
    number: int
    title: str
    start: LabConfig
    solution: LabConfig
    #: (what, test on the metrics) pairs; ``check`` names the ones that fail
    goals: tuple[tuple[str, Callable[[Metrics], bool]], ...]
    #: the mission's solution with its hazard switched off, for "without losing accuracy"
    reference: LabConfig | None = None

    def check(self, metrics: Metrics, reference: Metrics | None = None) -> list[str]:
        failed = [what for what, ok in self.goals if not ok(metrics)]
        if reference is not None and metrics["correct"] < reference["correct"] - 0.005:
            failed.append(f"correct {metrics['correct']:.1%} lost accuracy "
                          f"(without injection {reference['correct']:.1%})")
        return failed


_GOOD = LabConfig(policy=Mode.RECONCILE, gate=0.6, one_off_filter=True)

MISSIONS: dict[int, Mission] = {
    1: Mission(
        1, "Append with drift: stale at most 14% and at least 78% correct",
        start=LabConfig(policy=Mode.APPEND, drift=True),
        solution=_GOOD.model_copy(update={"drift": True}),
        goals=(("stale <= 14%", lambda m: m["stale"] <= 0.14),
               ("correct >= 78%", lambda m: m["correct"] >= 0.78))),
    2: Mission(
        2, "From overwrite with no filters: wrong at most 2%",
        start=LabConfig(policy=Mode.OVERWRITE),
        solution=_GOOD,
        goals=(("wrong <= 2%", lambda m: m["wrong"] <= 0.02),)),
    3: Mission(
        3, "Injection on: zero poisoned answers without losing accuracy",
        start=_GOOD.model_copy(update={"injection": True}),
        solution=_GOOD.model_copy(update={"injection": True, "provenance": True}),
        goals=(("poisoned == 0", lambda m: m["poisoned"] == 0),),
        reference=_GOOD),
    4: Mission(
        4, "Drift and injection from the worst configuration: stale and re-ask under 11%, "
           "wrong at most 1%, at most 300 live records",
        start=LabConfig(policy=Mode.APPEND, drift=True, injection=True),
        solution=LabConfig(policy=Mode.RECONCILE, gate=0.7, one_off_filter=True,
                           provenance=True, drift=True, injection=True, half_life=6),
        goals=(("stale < 11%", lambda m: m["stale"] < 0.11),
               ("re-ask < 11%", lambda m: m["reask"] < 0.11),
               ("wrong <= 1%", lambda m: m["wrong"] <= 0.01),
               ("live records <= 300", lambda m: m["live_records"] <= 300))),
}
