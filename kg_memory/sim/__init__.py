"""Simulations that exercise the memory graph end to end: the dinner study of seed 000."""

from kg_memory.sim.dinner import (
    POLICIES,
    Row,
    Run,
    format_log,
    format_prompt,
    format_table,
    run_all,
)
from kg_memory.sim.scenario import Scenario

__all__ = [
    "POLICIES",
    "Row",
    "Run",
    "Scenario",
    "format_log",
    "format_prompt",
    "format_table",
    "run_all",
]
