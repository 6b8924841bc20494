"""The embedded store on a read-only file or mount and on a full disk (issue 25, finding 10).

Every command that writes exits with a typed error and its documented code (73 read-only, 74
full) and leaves the file as it was; every command that reads works on a read-only file and on
a read-only mount; a forget whose erasure is committed but not yet scrubbed from the files exits
9 (``incomplete``), never 0.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kg_memory import Memory
from kg_memory.cli import app
from kg_memory.store.sqlite import driver
from tests.conftest import ROOT
from tests.mounts import fill, read_only_file, read_only_mount, remount_read_only, tmpfs

DINNER = ROOT / "fixtures" / "dinner" / "episodes.jsonl"
CANARY = "zq-canary-4821"
# The documented exit codes (docs/cli.md), pinned as numbers: scripts depend on them.
STORE_READ_ONLY_EXIT, STORE_FULL_EXIT, INCOMPLETE_EXIT = 73, 74, 9
runner = CliRunner(env={"COLUMNS": "200"})


def cli(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


def _episodes(path: Path) -> Path:
    """The dinner study and one more message from the user carrying the canary."""
    lines = DINNER.read_text(encoding="utf-8").rstrip("\n")
    canary = {"operation_id": "canary", "source": "user", "channel": "chat",
              "occurred_at": "2026-01-20T09:00:00Z", "scope": "u1",
              "content": f"my locker code is {CANARY}",
              "assertions": [{"subject": "u1", "predicate": "locker", "value": CANARY,
                              "kind": "stated"}]}
    path.write_text(f"{lines}\n{json.dumps(canary)}\n", encoding="utf-8")
    return path


def _build(store: Path) -> None:
    code, out = cli("ingest", str(_episodes(store.with_suffix(".jsonl"))), "--trust-envelopes",
                    "--store", str(store))
    assert code == 0, out


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """A closed store, and the ids of two of its facts (for consolidate)."""
    store = tmp_path_factory.mktemp("built") / "m.db"
    _build(store)
    with Memory.open(store, create=False) as memory:
        ids = [f.assertion_id for f in memory.asof(scope="u1").facts][:2]
    return store, ids


def _copy(built: Path, where: Path) -> Path:
    where.mkdir(parents=True, exist_ok=True)
    copy = where / "m.db"
    copy.write_bytes(built.read_bytes())
    return copy


def _writes(ids: list[str]) -> list[list[str]]:
    return [
        ["forget", "source:user@u1"],
        ["consolidate", "j1", "profile", "--from", ids[0], "--from", ids[1], "--scope", "u1"],
        ["entities", "resolve", "Jo", "--scope", "u1"],
        ["entities", "merge", "ana", "chez-lili", "--by", "alice", "--scope", "u1"],
        ["rules", "propose", "be kind", "--scope", "u1"],
        ["sweep", "--cap", "1", "--delete", "--scope", "u1"],
        ["ingest", str(DINNER), "--source", "user", "--channel", "chat"],
        ["migrate"],
    ]


AT = "2026-02-01T00:00:00Z"  # reads at a fixed instant, so two runs can be compared
READS = [
    ["asof", "--scope", "u1", "--json", "--valid-at", AT, "--known-at", AT],
    ["history", "ana", "--scope", "u1", "--json"],
    ["recall", "fish", "--scope", "u1", "--json", "--at", AT, "--known-at", AT],
    ["refusals", "--scope", "u1", "--json"],
    ["entities", "list", "--scope", "u1", "--json"],
    # --json: the table's line cuts a long path in its middle, so two stores at paths of
    # different lengths print differently however alike they are.
    ["check", "--json"],
]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(params=["file", "mount"])
def read_only(request: pytest.FixtureRequest, built: tuple[Path, list[str]],
              tmp_path: Path) -> Iterator[Path]:
    if request.param == "file":
        with read_only_file(_copy(built[0], tmp_path / "file")) as store:
            yield store
    else:
        with read_only_mount(built[0], tmp_path / "mnt") as store:
            yield store


def test_every_write_on_a_read_only_store_is_a_typed_refusal(
        read_only: Path, built: tuple[Path, list[str]]) -> None:
    before = _digest(read_only)
    for args in _writes(built[1]):
        code, out = cli(*args, "--store", str(read_only))
        assert code == STORE_READ_ONLY_EXIT, (args, out)
        assert "StoreReadOnly" in out, (args, out)
        assert "Traceback" not in out, (args, out)
    assert _digest(read_only) == before


def test_every_read_works_on_a_read_only_store(
        read_only: Path, built: tuple[Path, list[str]]) -> None:
    for args in READS:
        expected = cli(*args, "--store", str(built[0]))
        assert expected[0] == 0, expected
        code, out = cli(*args, "--store", str(read_only))
        assert code == 0, (args, out)
        assert out.replace(str(read_only), "STORE") == expected[1].replace(
            str(built[0]), "STORE"), args


def test_a_new_store_in_a_read_only_directory_is_a_typed_refusal(
        built: tuple[Path, list[str]], tmp_path: Path) -> None:
    with read_only_mount(built[0], tmp_path / "mnt") as store:
        code, out = cli("ingest", str(DINNER), "--trust-envelopes", "--store",
                        str(store.with_name("new.db")))
    assert code == STORE_READ_ONLY_EXIT, out
    assert "StoreReadOnly" in out


@pytest.mark.parametrize("with_index", [True, False])
def test_a_read_only_mount_with_commits_only_in_its_journal_is_refused_not_read_stale(
        built: tuple[Path, list[str]], tmp_path: Path, with_index: bool) -> None:
    with tmpfs(tmp_path / "mnt", 64 * 1024) as mounted:
        store = _copy(built[0], mounted)
        keep = driver.connect(store)  # a reader that keeps the journal from being folded in
        keep.execute("BEGIN")
        keep.execute("SELECT count(*) FROM episodes").fetchone()
        code, out = cli("rules", "propose", "be kind", "--scope", "u1", "--store", str(store))
        assert code == 0, out
        # A crashed writer leaves the WAL as it is: copy the three files as they stand.
        snapshot = tmp_path / "snap"
        snapshot.mkdir()
        for suffix in ("", "-wal", "-shm"):
            (snapshot / f"m.db{suffix}").write_bytes(Path(f"{store}{suffix}").read_bytes())
        keep.close()
    assert (snapshot / "m.db-wal").stat().st_size > 0
    with tmpfs(tmp_path / "ro", 64 * 1024) as mounted:
        # Without its WAL index the journal cannot be read in place on a read-only mount.
        for name in ("m.db", "m.db-wal", *(["m.db-shm"] if with_index else [])):
            (mounted / name).write_bytes((snapshot / name).read_bytes())
        remount_read_only(mounted)
        code, out = cli("rules", "list", "--scope", "u1", "--store", str(mounted / "m.db"))
    if with_index:
        assert code == 0, out
        assert "be kind" in out  # read with its journal's commit
    else:
        assert code == STORE_READ_ONLY_EXIT, out  # never read without it
        assert "journal" in out


def test_a_full_disk_never_reports_a_forget_done_while_the_files_keep_what_it_erased(
        built: tuple[Path, list[str]], tmp_path: Path) -> None:
    outcomes: dict[int, int] = {}
    for step, leave in enumerate(range(0, 384 * 1024, 16 * 1024)):
        with tmpfs(tmp_path / f"full{step}", 4096) as mounted:
            store = _copy(built[0], mounted)
            fill(mounted, leave)
            code, out = cli("forget", "source:user@u1", "--store", str(store))
            assert "Traceback" not in out, out
            assert code in (0, INCOMPLETE_EXIT, STORE_FULL_EXIT), (leave, out)
            outcomes[code] = outcomes.get(code, 0) + 1
            (mounted / "filler").unlink()
            files = [p for p in mounted.iterdir() if p.name.startswith("m.db")]
            leaked = any(CANARY.encode() in p.read_bytes() for p in files)
            if code == 0:
                assert not leaked, (leave, out)  # "complete" means gone from every file
            with Memory.open(store, create=False) as memory:
                committed = not any(f.value == CANARY for f in memory.asof(scope="u1").facts)
            if code == STORE_FULL_EXIT:
                assert not committed, (leave, out)  # refused: nothing of it was stored
                assert "StoreFull" in out
            else:
                assert committed, (leave, out)
            if code == INCOMPLETE_EXIT:
                assert "incomplete" in out
                # With space again, the same command finishes the scrub and says so.
                again, out = cli("forget", "source:user@u1", "--store", str(store))
                assert again == 0, out
                files = [p for p in mounted.iterdir() if p.name.startswith("m.db")]
                assert not any(CANARY.encode() in p.read_bytes() for p in files)
    # The sweep passed through every outcome: refused, committed but unscrubbed, complete.
    assert set(outcomes) == {0, INCOMPLETE_EXIT, STORE_FULL_EXIT}, outcomes


def test_a_forget_whose_journal_is_held_open_exits_incomplete(
        built: tuple[Path, list[str]], tmp_path: Path) -> None:
    store = _copy(built[0], tmp_path / "held")
    reader = driver.connect(store)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM episodes").fetchone()  # pins the WAL's frames
    try:
        result = runner.invoke(app, ["forget", "source:user@u1", "--store", str(store),
                                     "--json"])
    finally:
        reader.close()
    assert result.exit_code == INCOMPLETE_EXIT, result.output
    assert json.loads(result.stdout)["status"] == "incomplete"
    assert "run the same command again" in result.stderr
    code, out = cli("forget", "source:user@u1", "--store", str(store))
    assert code == 0, out
