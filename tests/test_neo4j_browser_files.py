"""``kg-memory neo4j style`` and ``kg-memory neo4j cypher``: a wheel user's Browser files.

The Browser style and the query library were documented only at repository paths, so a user of
the wheel dug through site-packages for them. The commands hand over the installed files byte
for byte (printed, or copied into a folder the user owns), read nothing but names of the
library, and never overwrite a user's edited copy unasked. ``.ci/wheel`` runs the same commands
from an installed wheel and compares them with these files.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from kg_memory.cli.app import app

ROOT = Path(__file__).resolve().parents[1]
GRASS = ROOT / "docker" / "browser" / "kg-memory.grass"
QUERIES = sorted((ROOT / "cypher").glob("*.cypher"))

runner = CliRunner()


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_style_prints_the_repository_style_byte_for_byte() -> None:
    result = runner.invoke(app, ["neo4j", "style"], terminal_width=40)
    assert result.exit_code == 0, result.output
    # 40 columns: a printer that wraps or reads [brackets] as markup would change the text.
    assert result.stdout == GRASS.read_text(encoding="utf-8")


def test_style_out_writes_the_file_and_keeps_a_users_edited_copy(tmp_path: Path) -> None:
    target = tmp_path / "[styles]" / "kg.grass"
    wrote = runner.invoke(app, ["neo4j", "style", "--out", str(target)])
    assert wrote.exit_code == 0
    assert str(target) in wrote.stdout  # the path as it is, brackets and all
    assert target.read_bytes() == GRASS.read_bytes()
    assert runner.invoke(app, ["neo4j", "style", "--out", str(target)]).exit_code == 0
    target.write_text("node { color: red; }\n", encoding="utf-8")
    refused = runner.invoke(app, ["neo4j", "style", "--out", str(target)])
    assert refused.exit_code == 2
    assert "--force" in refused.stderr
    assert target.read_text(encoding="utf-8") == "node { color: red; }\n"
    forced = runner.invoke(app, ["neo4j", "style", "--out", str(target), "--force"])
    assert forced.exit_code == 0
    assert target.read_bytes() == GRASS.read_bytes()


def test_cypher_lists_exactly_the_library() -> None:
    result = runner.invoke(app, ["neo4j", "cypher"])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [p.stem for p in QUERIES]


def test_cypher_prints_every_query_byte_for_byte() -> None:
    assert len(QUERIES) > 50
    for path in QUERIES:
        for name in (path.stem, path.name):
            result = runner.invoke(app, ["neo4j", "cypher", name], terminal_width=40)
            assert result.exit_code == 0, (name, result.output)
            assert result.stdout == path.read_text(encoding="utf-8"), name


@pytest.mark.parametrize("name", [
    "../browser/kg-memory.grass", "../browser/kg-memory", "asof/../asof", str(ROOT / "cypher" /
    "asof"), "/etc/passwd", "", "nope"])
def test_cypher_reads_only_names_of_the_library(name: str) -> None:
    result = runner.invoke(app, ["neo4j", "cypher", name])
    assert result.exit_code == 4, result.output
    assert result.stdout == ""
    assert "kg-memory neo4j cypher" in result.stderr


def test_cypher_out_copies_the_library(tmp_path: Path) -> None:
    out = tmp_path / "queries"
    result = runner.invoke(app, ["neo4j", "cypher", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert _files(out) == {p.name: p.read_bytes() for p in QUERIES}
    again = runner.invoke(app, ["neo4j", "cypher", "--out", str(out)])
    assert again.exit_code == 0
    assert f"0 written, {len(QUERIES)} already there" in again.stdout


def test_cypher_out_refuses_whole_when_a_copy_was_edited(tmp_path: Path) -> None:
    out = tmp_path / "queries"
    out.mkdir()
    (out / "asof.cypher").write_text("// mine\n", encoding="utf-8")
    (out / "notes.txt").write_text("mine too\n", encoding="utf-8")
    before = _files(out)
    refused = runner.invoke(app, ["neo4j", "cypher", "--out", str(out)])
    assert refused.exit_code == 2
    assert "asof.cypher" in refused.stderr
    assert _files(out) == before  # nothing written: a refused copy changes nothing
    forced = runner.invoke(app, ["neo4j", "cypher", "--out", str(out), "--force"])
    assert forced.exit_code == 0, forced.output
    assert (out / "asof.cypher").read_bytes() == (ROOT / "cypher" / "asof.cypher").read_bytes()
    assert (out / "notes.txt").read_text(encoding="utf-8") == "mine too\n"


def test_cypher_takes_a_name_or_out_not_both(tmp_path: Path) -> None:
    result = runner.invoke(app, ["neo4j", "cypher", "asof", "--out", str(tmp_path / "q")])
    assert result.exit_code == 2
    assert not (tmp_path / "q").exists()
