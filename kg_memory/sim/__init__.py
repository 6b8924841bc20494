"""Simulations that exercise the memory graph end to end: the dinner study of seed 000.

The picture (:mod:`kg_memory.sim.picture`) is not imported here: it needs the optional extra
``kg-memory-bitemporal[lab]``.
"""

from kg_memory.sim.baseline import Settings
from kg_memory.sim.dinner import (
    POLICIES,
    Row,
    Run,
    format_log,
    format_prompt,
    format_table,
    run_all,
)
from kg_memory.sim.grid import ReadsGrid, format_grid, reads_grid
from kg_memory.sim.scenario import Scenario
from kg_memory.sim.session import Session, session

__all__ = [
    "POLICIES",
    "ReadsGrid",
    "Row",
    "Run",
    "Scenario",
    "Session",
    "Settings",
    "format_grid",
    "format_log",
    "format_prompt",
    "format_table",
    "reads_grid",
    "run_all",
    "session",
]
