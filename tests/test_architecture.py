"""The tree shows the architecture, and these tests keep it that way.

Layers are folders (domain, services, store adapters, entry points); import-linter's contracts
in ``pyproject.toml`` hold their direction; no module imports itself back through a cycle; the
public facade's ``__all__`` is pinned, as httpx pins its own, so widening the API is a decision
and not an accident.
"""

from __future__ import annotations

import ast
import importlib
import tomllib
from pathlib import Path

import grimp
import networkx as nx
import pytest
from importlinter.cli import lint_imports

import kg_memory
from tests.conftest import ROOT

PACKAGE = ROOT / "kg_memory"
MODULE_LINES = 450  # "about 400": a module past this is two concepts

PUBLIC = [
    "AsOfAnswer", "AsOfQuery", "Assertion", "Basis", "ChangePlan", "Channel", "Clock",
    "ConcurrencyError", "ConsolidationRefused", "Direction", "EXIT_CODES", "Edge", "EdgeType",
    "Effect", "EndReason", "Entity", "Episode", "Evidence", "Fact", "ForgetPlan", "ForgetReport",
    "ForgottenError", "GateRule", "HistoryEntry", "IdempotencyConflict", "IngestError",
    "IngestRecord", "IngestReport", "Interval", "IntervalError", "KgMemoryError", "Kind",
    "Memory", "MentionCandidate", "NaiveDatetimeError", "Neo4jStore", "NotFound", "PolicyError",
    "Published", "Qualifiers", "Refusal", "ResolutionError", "Resolved", "ScopeError",
    "ScopedMemory", "Selector",
    "SqliteStore", "Store", "StoreUnavailable", "Support", "SyncReport", "TimeError",
    "Tombstone", "Transaction", "WriterPolicy", "__version__", "admit", "default_path",
    "ingest_schema", "lineage_graph", "lineage_tree", "open_store", "parse_instant",
    "parse_record", "preview_resolution", "read_records", "serialize_prov", "sync_mirror",
    "system_clock",
    # the writer gate's policies and what an answer says about trust (issue 10)
    "DEFAULT_AUTHORITY", "AuthorityTier", "ChannelPolicy", "ChannelRule", "Conflict",
    "Corroboration", "Inlet", "OwnerGrant", "corroboration", "mentioned",
    # write policies: admission, reconcile, decay, pending candidates, retention (issue 12)
    "AdmissionDecision", "Mode", "PendingCandidate", "PredicateRule", "Recalled", "ScopeLabel",
    "SweepReport", "WritePolicy", "recall_value",
    # layers and promotion (issue 12, seed 004)
    "Outcome", "PromotionPolicy", "Rule", "RuleBook", "RuleType", "Tier",
    # the agent integrations' errors (issue 14)
    "ExtraMissing", "QueryError", "WriteRefused",
    # Issue 11 (durability and concurrency): retry policy, busy and check exit codes, the
    # retryable error, and the integrity check's report.
    "Backoff", "INTEGRITY_EXIT", "IntegrityReport", "STORE_BUSY_EXIT", "StoreBusy", "Violation",
    # recall (issue 13)
    "EligibilityRule", "Embedder", "HashingEmbedder", "RankingWeights", "RecallAnswer",
    "RecallError", "RecallHit", "RecallUnavailable", "RecalledEpisode", "ScoreComponents",
    # Issue 11 (bad input): the typed argument error and the parsers the CLI uses.
    "InvalidArgument", "count_records", "parse_mention",
    # Neo4j schema 3 (issue 16): the migration's typed refusal and its report.
    "MigrationReport", "StoreNeedsMigration",
]


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_the_public_api_is_pinned() -> None:
    assert sorted(kg_memory.__all__) == sorted(PUBLIC)
    for name in kg_memory.__all__:
        assert getattr(kg_memory, name) is not None, name


def test_an_unknown_public_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'Neo4jStor'"):
        _ = kg_memory.Neo4jStor


def test_the_layers_are_folders() -> None:
    top = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert {"domain", "services", "store", "cli", "integrations"} <= top
    assert {p.name for p in (PACKAGE / "store").iterdir() if p.is_dir()} >= {"sqlite", "neo4j"}
    loose = {p.stem for p in PACKAGE.glob("*.py")}
    assert loose == {"__init__"}, f"modules outside a layer: {sorted(loose - {'__init__'})}"


def test_import_linter_contracts_hold() -> None:
    assert lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True) == 0


def test_no_module_imports_itself_back_through_a_cycle() -> None:
    graph = grimp.build_graph("kg_memory")
    imports: nx.DiGraph[str] = nx.DiGraph()
    for module in graph.modules:
        for imported in graph.find_modules_directly_imported_by(module):
            imports.add_edge(module, imported)
    assert list(nx.simple_cycles(imports)) == []


def test_every_module_names_its_public_surface_and_stays_small() -> None:
    for path in _modules():
        text = path.read_text(encoding="utf-8")
        rel = path.relative_to(ROOT)
        assert len(text.splitlines()) <= MODULE_LINES, f"{rel} is over {MODULE_LINES} lines"
        if path.name == "__main__.py":
            continue
        tree = ast.parse(text)
        names = [
            t.id for node in tree.body if isinstance(node, ast.Assign | ast.AnnAssign)
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
            if isinstance(t, ast.Name)
        ]
        assert "__all__" in names, f"{rel} has no __all__"


def test_every_code_package_ships_in_the_wheel() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    on_disk = {
        ".".join(p.parent.relative_to(ROOT).parts) for p in PACKAGE.rglob("__init__.py")
    }
    assert on_disk <= listed, f"add to [tool.setuptools] packages: {sorted(on_disk - listed)}"
    mapped = config["tool"]["setuptools"]["package-dir"]
    assert all((ROOT / folder).is_dir() for folder in mapped.values())
    resources = importlib.import_module("kg_memory.resources")
    assert {f"kg_memory.resources.{n}" for n in resources.FOLDERS} == set(mapped)
    assert {f"kg_memory.resources.{n}": f for n, f in resources.FOLDERS.items()} == mapped
