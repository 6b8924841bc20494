#!/usr/bin/env python3
"""Mutation testing of the pure rules: would the suite notice a small bug?

Each mutant is one small change to one module of the domain (a comparison flipped, an operand
of ``and``/``or`` dropped, a statement removed, a set operation swapped, a constant changed, a
``not`` dropped). The tests that executed the mutated line (found once, with coverage contexts)
run against a copy of the tree that holds the mutant; the mutant is *killed* when one fails (or
hangs), and *survives* otherwise. Messages are not mutated: a test that pins wording protects
nothing. Mutants judged equivalent (no caller can observe the change) are listed with the reason
in ``.ci/mutation-equivalent.txt`` and left out of the score.

    python .ci/mutation.py                      # every module, the full table and every survivor
    python .ci/mutation.py --module gate        # one module (a suffix of its dotted name)
    python .ci/mutation.py --sample 30 --seed 2026 --floor 80 --focus-only --jobs 2   # .ci/test

See docs/testing.md for how to read a survivor.
"""

from __future__ import annotations

import argparse
import ast
import functools
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from queue import Queue

ROOT = Path(__file__).resolve().parents[1]
MODULES = [
    "kg_memory.domain.interval",
    "kg_memory.domain.supersession",
    "kg_memory.domain.gate",
    "kg_memory.domain.forgetting",
    "kg_memory.domain.dependency",
    "kg_memory.domain.consolidation",
    "kg_memory.domain.resolution.comparison",
    "kg_memory.domain.resolution.decision",
    # policies
    "kg_memory.domain.admission",
    "kg_memory.domain.reconcile",
    "kg_memory.domain.decay",
    "kg_memory.domain.retention",
    "kg_memory.domain.pending",
    "kg_memory.domain.write_policy",
    "kg_memory.domain.layers",
    "kg_memory.domain.rule_review",
    # trust
    "kg_memory.domain.authority",
    "kg_memory.domain.channel",
    "kg_memory.domain.corroboration",
    # recall
    "kg_memory.domain.eligibility",
    "kg_memory.domain.ranking",
    "kg_memory.domain.recall_text",
    "kg_memory.domain.recall_answer",
    # forgetting
    "kg_memory.domain.residue",
    "kg_memory.domain.tombstone_keys",
]
EQUIVALENT = ROOT / ".ci" / "mutation-equivalent.txt"
IMPORT_TIME = "<import>"
#: Test files named like these run first for a module's mutants: most mutants die there in a
#: second, and only a survivor pays for every other test that runs the line.
FOCUS = {
    "interval": ("time", "interval"),
    "supersession": ("supersession", "write_path", "bitemporal"),
    "gate": ("gate", "trust", "poison", "identity_claims"),
    "forgetting": ("forget",),
    "dependency": ("dependency", "write_path"),
    "consolidation": ("consolidation", "forget"),
    "comparison": ("resolution_comparison", "resolution"),
    "decision": ("resolution_decision", "resolution"),
    "admission": ("policy_rules", "write_policy"),
    "reconcile": ("policy_rules", "write_policy", "bookstore"),
    "decay": ("policy_rules", "write_policy", "bookstore"),
    "retention": ("policy_rules", "sweep"),
    "pending": ("policy_rules", "pending", "write_policy"),
    "write_policy": ("policy_rules", "write_policy", "pending"),
    "layers": ("layers",),
    "rule_review": ("rule_dependencies", "rules_cli", "layers"),
    "authority": ("authority", "trust_gate", "poisoning"),
    "channel": ("trust_rules", "trust_gate"),
    "corroboration": ("trust_rules", "trust_gate"),
    "eligibility": ("recall_rules", "recall"),
    "ranking": ("recall_rules", "recall"),
    "recall_text": ("recall_rules", "recall"),
    "recall_answer": ("recall_rules", "recall"),
    "residue": ("residue", "forget"),
    "tombstone_keys": ("tombstone_keys", "tombstone", "forget"),
}
#: Tests that start servers, browsers, notebooks or child processes: too slow to run per mutant,
#: and they exercise the domain only through paths the unit and contract tests already cover.
SLOW = ["tests/test_browser_e2e.py", "tests/test_notebooks.py", "tests/test_bench_smoke.py",
        "tests/test_mirror.py"]

_COMPARE_SWAPS: dict[type[ast.cmpop], list[type[ast.cmpop]]] = {
    ast.Lt: [ast.LtE, ast.Gt], ast.LtE: [ast.Lt, ast.GtE], ast.Gt: [ast.GtE, ast.Lt],
    ast.GtE: [ast.Gt, ast.LtE], ast.Eq: [ast.NotEq], ast.NotEq: [ast.Eq],
    ast.In: [ast.NotIn], ast.NotIn: [ast.In], ast.Is: [ast.IsNot], ast.IsNot: [ast.Is],
}
_BINOP_SWAPS: dict[type[ast.operator], list[type[ast.operator]]] = {
    ast.BitAnd: [ast.BitOr], ast.BitOr: [ast.BitAnd], ast.Sub: [ast.Add], ast.Add: [ast.Sub],
    ast.Mult: [ast.Div], ast.Div: [ast.Mult], ast.BitXor: [ast.BitOr],
}


@dataclass(frozen=True)
class Mutant:
    module: str
    index: int  # the n-th mutation point of the module, stable for one source
    line: int
    operator: str
    description: str

    @property
    def key(self) -> str:
        return f"{self.module}:{self.line}:{self.operator}:{self.description}"


def _is_docstring(node: ast.AST, parent: ast.AST | None) -> bool:
    return (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str))


def _skip_subtree(node: ast.AST) -> bool:
    """Annotations, ``__all__`` and raise messages carry no behaviour a test should pin."""
    if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
        return True
    return isinstance(node, ast.JoinedStr)


class _Points(ast.NodeVisitor):
    """Enumerate mutation points in a fixed order; ``apply`` re-walks and mutates the n-th."""

    def __init__(self, target: int | None = None) -> None:
        self.target = target
        self.count = 0
        self.found: list[tuple[int, str, str]] = []
        self.applied = False

    def _point(self, line: int, operator: str, description: str) -> bool:
        hit = self.count == self.target
        self.found.append((line, operator, description))
        self.count += 1
        return hit

    def generic_visit(self, node: ast.AST) -> None:
        if _skip_subtree(node):
            return
        for field, value in ast.iter_fields(node):
            if field in {"annotation", "returns", "decorator_list", "type_comment"}:
                continue
            if isinstance(value, list):
                self._statements(node, field, value)
                for item in list(value):
                    if isinstance(item, ast.AST):
                        self.visit(item)
            elif isinstance(value, ast.AST):
                self.visit(value)

    def _statements(self, parent: ast.AST, field: str, body: list[ast.AST]) -> None:
        for i, stmt in enumerate(body):
            removable = isinstance(stmt, ast.Expr | ast.AugAssign | ast.Raise | ast.Continue
                                   | ast.Break) and not _is_docstring(stmt, parent)
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                removable = False  # `...` bodies
            if removable and self._point(stmt.lineno, "remove-statement",
                                         ast.unparse(stmt).splitlines()[0][:60]):
                body[i] = ast.copy_location(ast.Pass(), stmt)
                self.applied = True

    def visit_Compare(self, node: ast.Compare) -> None:
        for i, op in enumerate(node.ops):
            for swap in _COMPARE_SWAPS.get(type(op), []):
                if self._point(node.lineno, "compare", f"{type(op).__name__}->{swap.__name__}"):
                    node.ops[i] = swap()
                    self.applied = True
        self.generic_visit(node)

    def visit_BoolOp(self, node: ast.BoolOp) -> None:
        name = "and" if isinstance(node.op, ast.And) else "or"
        if self._point(node.lineno, "boolop", f"{name}->{'or' if name == 'and' else 'and'}"):
            node.op = ast.Or() if name == "and" else ast.And()
            self.applied = True
        for i in range(len(node.values)):
            if self._point(node.lineno, "drop-operand", f"drop operand {i} of {name}"):
                del node.values[i]
                self.applied = True
                break
        self.generic_visit(node)

    def visit_BinOp(self, node: ast.BinOp) -> None:
        for swap in _BINOP_SWAPS.get(type(node.op), []):
            if self._point(node.lineno, "binop", f"{type(node.op).__name__}->{swap.__name__}"):
                node.op = swap()
                self.applied = True
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        for swap in _BINOP_SWAPS.get(type(node.op), []):
            if self._point(node.lineno, "augassign",
                           f"{type(node.op).__name__}=->{swap.__name__}="):
                node.op = swap()
                self.applied = True
        self.generic_visit(node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> None:
        if isinstance(node.op, ast.Not) and self._point(node.lineno, "drop-not", "not x -> x"):
            node.op = ast.UAdd()  # +bool(x) keeps truthiness: only `not` is gone
            node.operand = ast.Call(ast.Name("bool", ast.Load()), [node.operand], [])
            self.applied = True
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        value = node.value
        if isinstance(value, bool):
            if self._point(node.lineno, "constant", f"{value}->{not value}"):
                node.value = not value
                self.applied = True
        elif isinstance(value, int | float) and self._point(
                node.lineno, "constant", f"{value}->{value + 1}"):
            node.value = value + 1
            self.applied = True


def _module_path(module: str, root: Path) -> Path:
    return root.joinpath(*module.split(".")).with_suffix(".py")


def mutants_of(module: str) -> list[Mutant]:
    walker = _Points()
    walker.visit(ast.parse(_module_path(module, ROOT).read_text(encoding="utf-8")))
    return [Mutant(module, i, line, op, desc) for i, (line, op, desc) in enumerate(walker.found)]


def mutated_source(mutant: Mutant) -> str:
    tree = ast.parse(_module_path(mutant.module, ROOT).read_text(encoding="utf-8"))
    walker = _Points(target=mutant.index)
    walker.visit(tree)
    assert walker.applied, mutant
    return ast.unparse(ast.fix_missing_locations(tree))


def _equivalent() -> dict[str, str]:
    if not EQUIVALENT.exists():
        return {}
    table: dict[str, str] = {}
    for raw in EQUIVALENT.read_text(encoding="utf-8").splitlines():
        if raw.strip() and not raw.startswith("#"):
            key, _, reason = raw.partition(" -- ")
            table[key.strip()] = reason.strip()
    return table


def _python() -> str:
    venv = ROOT / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


def _test_env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(KG_TEST_BACKENDS="embedded", KG_HYPOTHESIS_PROFILE="mutation")
    return env


def coverage_map(work: Path) -> dict[str, dict[int, set[str]]]:
    """Which tests execute each line of each target module (one coverage run with contexts)."""
    data_file = work / ".coverage"
    command = [_python(), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not neo4j",
               # Folders, not module names: coverage finds a dotted source by importing its
               # parents while it starts, and numpy (imported by the store) cannot be loaded
               # twice in one process.
               *[f"--cov={d}" for d in sorted({_module_path(m, ROOT).parent for m in MODULES})],
               "--cov-context=test", "--cov-report=", "-o",
               f"cache_dir={work}/cache", *[f"--ignore={s}" for s in SLOW], "tests"]
    env = _test_env() | {"COVERAGE_FILE": str(data_file)}
    # A mutant is killed by a failing test, so the unmutated tree must pass first.
    baseline = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    if baseline.returncode != 0:
        raise SystemExit(f"the suite fails without any mutant; fix it first:\n{baseline.stdout}")
    from coverage import CoverageData

    data = CoverageData(basename=str(data_file))
    data.read()
    covered: dict[str, dict[int, set[str]]] = {}
    for module in MODULES:
        path = str(_module_path(module, ROOT))
        by_line = data.contexts_by_lineno(path)
        # A line run only at import (a class body, a model's config, a module constant) has
        # the empty context: no one test ran it, so its mutants run the module's focus files.
        covered[module] = {
            line: {c.split("|")[0] for c in contexts if c} or {IMPORT_TIME}
            for line, contexts in by_line.items()
        }
    return covered


def _copy_tree(work: Path) -> Path:
    tree = work / "tree"
    work.mkdir(parents=True, exist_ok=True)
    shutil.copytree(ROOT, tree, ignore=shutil.ignore_patterns(
        ".venv", ".git", "*.egg-info", "__pycache__", ".mypy_cache", ".ruff_cache",
        ".hypothesis", "artifacts", "target", ".import_linter_cache"))
    return tree


@functools.cache
def _test_files() -> tuple[str, ...]:
    # Read once per run: every mutant's stages are cut from the same list of files.
    return tuple(sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").glob("test_*.py")))


def _focus_files(words: tuple[str, ...]) -> list[str]:
    return [f for f in _test_files() if any(w in Path(f).name for w in words)]


def _stages(mutant: Mutant, tests: set[str]) -> list[list[str]]:
    words = FOCUS.get(mutant.module.rsplit(".", 1)[-1], ())
    if IMPORT_TIME in tests:
        return [_focus_files(words)]
    focus = sorted(t for t in tests if any(w in t.split("::")[0] for w in words))
    rest = sorted(tests - set(focus))
    return [stage for stage in (focus, rest) if stage]


def _focus_stages(mutant: Mutant) -> list[list[str]]:
    """Without a coverage map: the files named by the module's first focus word, its other focus
    files, then every target's focus files.

    A stage runs only for a survivor of the one before; the last holds the files named for the
    other rules (a rule's mutant is often noticed through its callers' tests). A mutant that
    only an unfocused test would notice counts as survived, so this score is a lower bound of
    the coverage-selected run's: it can fail a run that should pass, never the other way.
    """
    words = FOCUS.get(mutant.module.rsplit(".", 1)[-1], ())
    # The first word names the module's own rule tests: most mutants die there in seconds, and
    # only a survivor of those pays for the slower store and property files of the rest.
    first = _focus_files(words[:1])
    own = [f for f in _focus_files(words) if f not in first]
    every = sorted({f for w in FOCUS.values() for f in _focus_files(w)} - set(first) - set(own))
    return [stage for stage in (first, own, every) if stage]


#: pytest's exit codes for an internal error, a usage error and no tests collected: the stage
#: did not run. That says nothing about the mutant unless the same stage runs unmutated.
_NOT_RUN = {3, 4, 5}


def _collects(stage: list[str], tree: Path) -> bool:
    """Whether pytest collects ``stage`` in ``tree`` as it stands (the mutant undone)."""
    return subprocess.run(
        [_python(), "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "-p",
         "no:cov", *stage], cwd=tree, env=_test_env(), stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL, check=False).returncode == 0


def run_mutant(mutant: Mutant, stages: list[list[str]], tree: Path, timeout: float) -> str:
    """``killed``, ``survived`` or ``uncovered`` (no test runs the line: it survives too)."""
    if not stages:
        return "uncovered"
    path = _module_path(mutant.module, tree)
    original = path.read_text(encoding="utf-8")
    path.write_text(mutated_source(mutant), encoding="utf-8")
    try:
        for stage in stages:
            result = subprocess.run(
                [_python(), "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-p",
                 "no:cov", *stage],
                cwd=tree, env=_test_env(), stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, timeout=timeout, check=False,
            )
            if result.returncode in _NOT_RUN:
                # A mutant that breaks the package's import (a default refused by a mutated
                # bound, built at import time) stops pytest before it runs a test: killed, if
                # the stage collects once the mutant is undone; otherwise the harness is broken.
                path.write_text(original, encoding="utf-8")
                if _collects(stage, tree):
                    return "killed"
                raise SystemExit(f"pytest could not run {stage} (exit {result.returncode})")
            if result.returncode != 0:
                return "killed"
    except subprocess.TimeoutExpired:
        return "killed"  # a mutant that hangs is noticed
    finally:
        path.write_text(original, encoding="utf-8")
    return "survived"


def _run_all(mutants: list[Mutant], stages_of: Callable[[Mutant], list[list[str]]],
             work: Path, jobs: int, timeout: float) -> list[tuple[str, float]]:
    """Each worker owns a copy of the tree, so two mutants never share a mutated file."""
    trees: Queue[Path] = Queue()
    for n in range(jobs):
        tree = _copy_tree(work / f"worker{n}")
        # A copy that cannot run its tests would count every mutant as killed: prove it can.
        canary = subprocess.run([_python(), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
                                 "no:cov", *_focus_files(FOCUS["interval"])],
                                cwd=tree, env=_test_env(), capture_output=True, text=True,
                                check=False)
        if canary.returncode != 0:
            raise SystemExit(f"the unmutated copy fails its tests; fix it first:\n{canary.stdout}")
        trees.put(tree)

    def one(mutant: Mutant) -> tuple[str, float]:
        tree = trees.get()
        started = time.monotonic()
        try:
            return run_mutant(mutant, stages_of(mutant), tree, timeout), \
                time.monotonic() - started
        finally:
            trees.put(tree)

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(one, mutants))


def _choose(modules: list[str], sample: int | None, seed: int) -> Iterator[Mutant]:
    everything = [m for module in modules for m in mutants_of(module)]
    if sample is not None:
        everything = random.Random(seed).sample(everything, min(sample, len(everything)))
    yield from everything


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--module", action="append", default=[],
                        help="a suffix of a target module's dotted name; repeatable")
    parser.add_argument("--sample", type=int, help="run this many mutants, chosen by --seed")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--floor", type=float, help="fail when the score (%%) is below this")
    parser.add_argument("--json", type=Path, help="write every mutant's outcome here")
    parser.add_argument("--timeout", type=float,
                        help="seconds per test run of a mutant (120; 1800 with --focus-only)")
    parser.add_argument("--focus-only", action="store_true",
                        help="no coverage baseline: run the focus files (a lower-bound score)")
    parser.add_argument("--jobs", type=int, default=1, help="mutants run side by side")
    args = parser.parse_args(argv)
    modules = [m for m in MODULES if not args.module or any(m.endswith(s) for s in args.module)]
    if not modules:
        parser.error(f"no target module ends with {args.module}; targets: {MODULES}")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    equivalent = _equivalent()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="kg-mutation-") as tmp:
        work = Path(tmp)
        chosen = list(_choose(modules, args.sample, args.seed))
        to_run = [m for m in chosen if m.key not in equivalent]
        if args.focus_only:
            stages_of = _focus_stages
            # A survivor's second stage runs every focus file: minutes on a loaded machine, and
            # a timeout counts as a kill, so the limit is only for a mutant that hangs.
            timeout = args.timeout if args.timeout is not None else 1800.0
        else:
            covered = coverage_map(work)
            timeout = args.timeout if args.timeout is not None else 120.0

            def stages_of(mutant: Mutant) -> list[list[str]]:
                tests = covered[mutant.module].get(mutant.line, set())
                return _stages(mutant, tests) if tests else []

        timed = dict(zip(to_run, _run_all(to_run, stages_of, work, args.jobs, timeout),
                         strict=True))
        outcomes = [(m, timed[m][0] if m in timed else "equivalent") for m in chosen]
    print(f"{'module':<42} {'mutants':>7} {'killed':>6} {'surv.':>5} {'equiv.':>6} {'score':>6}")
    total_killed = total_scored = 0
    for module in modules:
        rows = [o for m, o in outcomes if m.module == module]
        killed = rows.count("killed")
        eq = rows.count("equivalent")
        scored = len(rows) - eq
        total_killed, total_scored = total_killed + killed, total_scored + scored
        score = f"{100 * killed / scored:.0f}%" if scored else "-"
        print(f"{module:<42} {len(rows):>7} {killed:>6} {scored - killed:>5} {eq:>6} {score:>6}")
    print()
    for mutant, outcome in outcomes:
        if outcome in {"survived", "uncovered"}:
            print(f"survived{' (no test runs it)' if outcome == 'uncovered' else ''}: "
                  f"{mutant.key}")
    # The slowest mutants are what the CI's 40-minute budget is spent on: named, so a focus
    # set that grew too slow shows in the log.
    slowest = sorted(timed.items(), key=lambda item: -item[1][1])[:5]
    if slowest:
        print("\nslowest mutants:")
        for mutant, (outcome, seconds) in slowest:
            print(f"  {seconds:6.0f}s {outcome:<9} {mutant.key}")
    overall = 100 * total_killed / total_scored if total_scored else 100.0
    print(f"\nscore {overall:.1f}% ({total_killed}/{total_scored}) "
          f"in {time.monotonic() - started:.0f}s")
    if args.json:
        args.json.write_text(json.dumps(
            [{"key": m.key, "outcome": o} for m, o in outcomes], indent=1), encoding="utf-8")
    if args.floor is not None and overall < args.floor:
        print(f"mutation score {overall:.1f}% is below the floor {args.floor}%")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
