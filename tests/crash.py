"""The crash harness: SIGKILL writers at random points, then prove nothing acknowledged is lost.

Each kill runs one writer as a separate process, lets it run for a random time and SIGKILLs
it (no cleanup, no rollback, no close: what a crash or an OOM kill does to a process). The
writers are the per-episode API (``Memory.ingest``), the batch API (``ingest_many`` with a
random batch size), the CLI (``kg-memory ingest --acks``, in a forked child and as a real
executable) and a forget run. Forked children start in about a millisecond, which is what makes
a hundred kills fit in well under a minute on two cores.

After every kill the parent checks, on the file the child left:

* the store opens and ``Memory.check()`` finds no violation;
* every operation the child acknowledged (``on_report``, the CLI's ``--acks``) is stored;
* what is stored is a prefix of the input, and each stored episode has exactly the revisions,
  refusals and edges it has in an uncrashed reference store (no partial episode);
* the next run over the same input acknowledges the episodes stored before it as duplicates;
* a killed forget run either completed or completes when re-run, after which the canary is in
  no file of the store (database, WAL, shared memory), and replaying it is refused.

What is not simulated: power loss. A SIGKILL leaves the kernel's page cache intact, so this
proves the ordering of commit and acknowledgement, not the disk's honesty about ``fsync``.

Seeded: ``python -m tests.crash --seed N --kills K`` replays a run exactly (the kill points are
drawn from the seed; what the child reached by then depends on the machine).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
import traceback
from collections import Counter
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kg_memory import ForgottenError, IngestRecord, Memory, parse_record
from kg_memory.services.ingestion import episode_id_for
from kg_memory.store.sqlite import driver
from tests.procs import ROOT, line, read_acks, write_input

__all__ = ["CrashFailure", "Harness", "main"]

CANARY = "CANARY-7f3e-locker-code-9931"
SCENARIOS = ("episode", "batch", "cli", "forget")


class CrashFailure(AssertionError):
    """An invariant did not hold after a kill; the message names the seed and the kill."""


@dataclass
class Round:
    """One store being written by successive killed children until one finishes."""

    scenario: str
    directory: Path
    stored_before: set[str] = field(default_factory=set)
    acknowledged: set[str] = field(default_factory=set)
    runs: int = 0

    @property
    def db(self) -> Path:
        return self.directory / "m.db"


def _stored(db: Path) -> list[str]:
    """Operation ids in the store, in the order they were written."""
    if not db.exists():
        return []
    raw = driver.connect(db)
    with closing(raw):
        try:
            return [r[0] for r in raw.execute(
                "SELECT operation_id FROM episodes ORDER BY recorded_at")]
        except driver.OperationalError:  # killed before the schema transaction committed
            return []


def _cpu_seconds() -> float:
    """CPU time of this process and of every child it has waited for."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _shape(db: Path) -> dict[str, tuple[int, int, int]]:
    """Per operation: revisions it recorded, refusals, edges from its episode."""
    with closing(driver.connect(db)) as raw:
        return {r[0]: (r[1], r[2], r[3]) for r in raw.execute(
            "SELECT e.operation_id, "
            "(SELECT count(*) FROM versions v WHERE v.recorded_by = e.episode_id), "
            "(SELECT count(*) FROM refusals r WHERE r.episode_id = e.episode_id), "
            "(SELECT count(*) FROM edges g WHERE g.src = e.episode_id) FROM episodes e")}


class Harness:
    def __init__(self, workdir: Path, *, seed: int, kills: int, lines: int = 80,
                 cli_exec: int = 8, scenarios: tuple[str, ...] = SCENARIOS) -> None:
        self.workdir = workdir
        self.seed = seed
        self.rng = random.Random(seed)
        self.kills = kills
        self.scenarios = scenarios
        self.batch_sizes: tuple[int, ...] = (1, 5, 16, 64)
        self.cli_exec = cli_exec
        self.source = workdir / "input.jsonl"
        self.ops = write_input(self.source, lines)
        self.records = [parse_record(line(n)) for n in range(lines)]
        self.reference = self._reference()
        self.forget_template, self.canary_record = self._forget_template()
        self.rounds: dict[str, Round] = {}
        self.counts: Counter[str] = Counter()
        #: How long an uninterrupted child took, per scenario: kill points are drawn below it.
        #: Measured by :meth:`run` before the first kill; these are only a quiet machine's.
        self.durations: dict[str, float] = {"episode": 0.3, "batch": 0.1, "cli": 0.4,
                                            "forget": 0.05, "cli-exec": 1.0}
        self._serial = 0

    # -- fixtures --------------------------------------------------------------------------

    def _reference(self) -> dict[str, tuple[int, int, int]]:
        path = self.workdir / "reference" / "m.db"
        path.parent.mkdir()
        with Memory.open(path) as memory:
            for record in self.records:
                memory.ingest(record)
        return _shape(path)

    def _forget_template(self) -> tuple[Path, IngestRecord]:
        directory = self.workdir / "forget-template"
        directory.mkdir()
        canary = parse_record({
            "operation_id": "canary", "source": "user", "channel": "chat", "scope": "u1",
            "occurred_at": "2026-01-05T10:00:00Z",
            "content": f"remember {CANARY} for the gym",
            "assertions": [{"subject": "gym", "predicate": "locker", "value": CANARY,
                            "kind": "stated"}]})
        with Memory.open(directory / "m.db") as memory:
            memory.ingest_many([*self.records[:40], canary, *self.records[40:]])
        assert not Path(f"{directory / 'm.db'}-wal").exists()  # closed: folded into the file
        return directory / "m.db", canary

    def _fresh(self, scenario: str) -> Round:
        self._serial += 1
        directory = self.workdir / f"{scenario}-{self._serial:04d}"
        directory.mkdir()
        if scenario == "forget":
            shutil.copy(self.forget_template, directory / "m.db")
        return Round(scenario=scenario, directory=directory)

    @staticmethod
    def _selector(choice: int) -> str:
        """Everything the user sent (81 episodes) or only the canary's episode."""
        return "source:user@u1" if choice == 0 else f"episode:{episode_id_for('u1', 'canary')}@u1"

    # -- children --------------------------------------------------------------------------

    def _child(self, scenario: str, db: Path, acks: Path, batch: int) -> None:
        """Runs in the forked child; never returns."""
        code = 0
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(devnull, 2)
            fd = os.open(acks, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

            def ack(operation_id: str, status: str) -> None:
                os.write(fd, f"{operation_id}\t{status}\n".encode())

            if scenario == "episode":
                with Memory.open(db) as memory:
                    for record in self.records:
                        report = memory.ingest(record)
                        ack(report.operation_id, report.status)
            elif scenario == "batch":
                with Memory.open(db) as memory:
                    memory.ingest_many(self.records, batch_size=batch,
                                       on_report=lambda r: ack(r.operation_id, r.status))
            elif scenario == "cli":
                from kg_memory.cli.app import app

                try:
                    app(["ingest", str(self.source), "--store", str(db), "--json",
                         "--trust-envelopes", "--acks", str(acks), "--batch-size", str(batch)])
                except SystemExit as exc:
                    code = exc.code if isinstance(exc.code, int) else 1
            elif scenario == "forget":
                with Memory.open(db, create=False) as memory:
                    memory.forget(self._selector(batch))
        except BaseException:
            Path(f"{acks}.error").write_text(traceback.format_exc(), encoding="utf-8")
            code = 1
        os._exit(code)

    def _run_child(self, scenario: str, rnd: Round, acks: Path, batch: int) -> bool:
        """Start the child, SIGKILL it at a random point; True if it was killed mid-run."""
        delay = self.rng.uniform(0, 1.3 * self.durations[scenario])
        started = time.monotonic()
        if scenario == "cli-exec":
            proc = subprocess.Popen(
                [sys.executable, "-c", "from kg_memory.cli import main; main()", "ingest",
                 str(self.source), "--store", str(rnd.db), "--json", "--trust-envelopes",
                 "--acks", str(acks), "--batch-size", str(batch)],
                cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            try:
                proc.wait(timeout=delay)
            except subprocess.TimeoutExpired:
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                return True
            if proc.returncode != 0:
                raise self._fail(rnd, f"the CLI exited {proc.returncode}: "
                                 f"{proc.stderr.read() if proc.stderr else b''!r}")
            return False
        pid = os.fork()
        if pid == 0:
            self._child(scenario, rnd.db, acks, batch)
        deadline = started + delay
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() >= deadline:
                os.kill(pid, signal.SIGKILL)
                _, status = os.waitpid(pid, 0)
                break
            time.sleep(0.0005)
        if os.WIFSIGNALED(status):
            return True
        if os.WEXITSTATUS(status) != 0:
            error = Path(f"{acks}.error")
            raise self._fail(rnd, "the child failed: " + (
                error.read_text(encoding="utf-8") if error.exists() else
                f"exit {os.WEXITSTATUS(status)}"))
        return False

    # -- one kill ----------------------------------------------------------------------------

    def _fail(self, rnd: Round, message: str) -> CrashFailure:
        return CrashFailure(f"seed {self.seed}, {rnd.scenario} run {rnd.runs} in "
                            f"{rnd.directory}: {message}")

    def kill_once(self, scenario: str) -> None:
        kind = "cli" if scenario == "cli-exec" else scenario
        rnd = self.rounds.get(scenario) or self._fresh(kind)
        self.rounds[scenario] = rnd
        rnd.runs += 1
        acks = rnd.directory / f"acks-{rnd.runs:03d}"
        batch = self.rng.choice(self.batch_sizes) if kind != "forget" else self.rng.choice([0, 1])
        killed = self._run_child(scenario, rnd, acks, batch)
        self.counts["kills"] += 1
        self.counts[f"kills:{scenario}"] += 1
        self.counts["mid-run" if killed else "finished-first"] += 1
        if kind == "forget":
            self._verify_forget(rnd, batch)
            del self.rounds[scenario]
            return
        finished = self._verify_ingest(rnd, read_acks(acks))
        if finished:
            self.counts["rounds-completed"] += 1
            del self.rounds[scenario]

    def _verify_ingest(self, rnd: Round, acks: list[tuple[str, str]]) -> bool:
        stored = _stored(rnd.db)
        if stored:
            self._check(rnd)
        acked = {op for op, _ in acks}
        self.counts["acknowledged"] += len(acked)
        rnd.acknowledged |= acked
        lost = rnd.acknowledged - set(stored)
        if lost:
            raise self._fail(rnd, f"{len(lost)} acknowledged episode(s) missing: "
                             f"{sorted(lost)[:5]}")
        if stored != self.ops[: len(stored)]:
            raise self._fail(rnd, "the stored episodes are not a prefix of the input")
        shape = _shape(rnd.db) if stored else {}
        partial = [op for op in stored if shape[op] != self.reference[op]]
        if partial:
            raise self._fail(rnd, f"partial episode(s): {partial[:5]}")
        wrong = [(op, status) for op, status in acks
                 if (status == "duplicate") != (op in rnd.stored_before)]
        if wrong:
            raise self._fail(rnd, f"re-ingest misreported: {wrong[:5]}")
        self.counts["duplicates-reported"] += sum(s == "duplicate" for _, s in acks)
        rnd.stored_before = set(stored)
        return len(stored) == len(self.ops)

    def _check(self, rnd: Round) -> None:
        with Memory.open(rnd.db, create=False) as memory:
            report = memory.check()
        self.counts["checks"] += 1
        if not report.ok:
            raise self._fail(rnd, f"check found {report.violations[:3]}")

    def _verify_forget(self, rnd: Round, batch: int) -> None:
        self._check(rnd)
        selector = self._selector(batch)
        with Memory.open(rnd.db, create=False) as memory:
            again = memory.forget(selector)
            if again.status not in ("complete", "nothing-to-forget"):
                raise self._fail(rnd, f"re-running the forget reported {again.status}")
            self.counts[f"forget-rerun:{again.status}"] += 1
            report = memory.check()
            if not report.ok:
                raise self._fail(rnd, f"check after the forget found {report.violations[:3]}")
        for path in rnd.directory.iterdir():
            if path.name.startswith("m.db") and CANARY.encode() in path.read_bytes():
                raise self._fail(rnd, f"the canary is still in {path.name}")
        with Memory.open(rnd.db, create=False) as memory:
            try:
                memory.ingest(self.canary_record)
            except ForgottenError:
                pass
            else:
                raise self._fail(rnd, "a replay of the forgotten canary was accepted")
        self.counts["forgets-verified"] += 1

    # -- the run -----------------------------------------------------------------------------

    def _calibrate(self, scenario: str) -> None:
        """Time one uninterrupted child of ``scenario`` on a scratch store.

        A loaded machine runs a child several times slower than a quiet one; with a quiet
        machine's durations every kill would land before the child's first acknowledgement,
        and a run that acknowledges nothing proves nothing (it passed with acknowledgements
        sent before the commit, under a CI run's load).
        """
        kind = "cli" if scenario == "cli-exec" else scenario
        rnd = self._fresh(kind)
        self.durations[scenario] = 1e9  # no kill
        batch = max(self.batch_sizes) if kind != "forget" else 0
        started = time.monotonic()
        self._run_child(scenario, rnd, rnd.directory / "acks-calibration", batch)
        self.durations[scenario] = max(0.005, time.monotonic() - started)

    def run(self, budget: float | None = None) -> dict[str, Any]:
        """Every kill of the plan, then every open round finished; ``budget`` bounds the CPU
        seconds of this process and its children (CPU, not wall time: a loaded machine
        stretches the wall clock, not the work)."""
        started = time.monotonic()
        cpu = _cpu_seconds()
        plan = [*(["cli-exec"] * self.cli_exec)]
        plan += [self.scenarios[i % len(self.scenarios)] for i in range(self.kills - len(plan))]
        self.rng.shuffle(plan)
        for scenario in sorted(set(plan)):
            self._calibrate(scenario)
        for scenario in plan:
            self.kill_once(scenario)
            if budget is not None and _cpu_seconds() - cpu > budget:
                raise CrashFailure(f"seed {self.seed}: over the {budget:.0f} s CPU budget "
                                   f"after {self.counts['kills']} kills")
        # Finish every open round, so each scenario also proves a run that completes.
        for scenario, rnd in list(self.rounds.items()):
            self.durations[scenario] = 1e9  # no kill: let it finish
            self.kill_once(scenario)
            self.counts["kills"] -= 1
            self.counts[f"kills:{scenario}"] -= 1
            self.counts["finished-first"] -= 1
            del rnd
        return {"seed": self.seed, "seconds": round(time.monotonic() - started, 1),
                "cpu_seconds": round(_cpu_seconds() - cpu, 1),
                "lost": 0, **dict(sorted(self.counts.items()))}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--kills", type=int, default=120)
    parser.add_argument("--workdir", type=Path, default=None)
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else random.randrange(2**31)
    workdir = args.workdir or Path(f"/tmp/kg-crash-{seed}")
    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True)
    print(f"crash harness seed {seed} in {workdir}", flush=True)
    summary = Harness(workdir, seed=seed, kills=args.kills).run()
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
