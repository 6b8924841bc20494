"""docs/benchmarks.md opens with today's figures and how to reproduce them; history is an appendix.

A reader came for the current figures and met a 1,400-line history of rounds, newest and oldest
interleaved. The page now has three parts in this order, and every round the current part cites
by name ("Round 4: sync", "Previous run") is still there, in the appendix.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
APPENDIX = "## Appendix: earlier rounds"


def _parts() -> tuple[str, str, str]:
    head, rest = PAGE.split("\n## How to reproduce\n")
    reproduce, appendix = rest.split(f"\n{APPENDIX}\n")
    return head, reproduce, appendix


def _unfenced(text: str) -> str:
    return re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)


def test_the_page_opens_with_current_figures_then_reproduction_then_the_appendix() -> None:
    sections = re.findall(r"^## (.+)$", _unfenced(PAGE), re.M)
    assert sections == ["Current figures", "How to reproduce", APPENDIX.removeprefix("## ")]


def test_the_current_part_holds_the_targets_and_the_newest_runs() -> None:
    head, _, _ = _parts()
    for title in ("Issue 28: where every goal stands (session 22)",
                  "Issue 28: where every goal stood (session 17)",
                  "Where the time goes, goal by goal (session 15)",
                  "Issue 16: where every target stands", "Session 9's closing run",
                  "The whole bench at 1e6 on Neo4j (session 9)", "The engine (issue 28)"):
        assert re.search(rf"^### {re.escape(title)}", head, re.M), title


def test_reproduction_gives_the_commands_of_the_current_runs() -> None:
    _, reproduce, _ = _parts()
    commands = re.findall(r"^```bash\n(.*?)^```", reproduce, re.M | re.S)
    assert commands, "no command block"
    lines = [line for block in commands for line in block.splitlines()
             if line and not line.startswith("#")]
    assert any(line.startswith("kg-memory neo4j up") for line in lines)
    assert any("kg-memory bench --scale 1e4,1e5 --backend neo4j" in line for line in lines)
    assert any("kg-memory bench --scale 1e6 --backend neo4j" in line for line in lines)
    for line in lines:  # every command runs as the CLI of this checkout spells it
        if "kg-memory bench" in line:
            assert set(re.findall(r"--[a-z-]+", line)) <= {"--scale", "--backend", "--json",
                                                            "--output"}, line


def test_every_round_the_current_figures_cite_is_in_the_appendix() -> None:
    head, _, appendix = _parts()
    titles = [h.strip() for h in re.findall(r"^#{3,} (.+)$", _unfenced(appendix), re.M)]
    titles += re.findall(r"^\*\*([^*]+)\*\*", appendix, re.M)  # rounds kept as bold labels
    cited = {q for q in re.findall(r'"([^"\n]+)"', head) if q[0].isupper()}
    assert len(cited) > 10, "the citations are no longer quoted by name"
    own = {h.strip() for h in re.findall(r"^### (.+)$", head, re.M)}
    missing = [q for q in cited
               if not any(t.startswith(q) for t in titles) and not any(
                   t.startswith(q) for t in own)]
    assert missing == []


def test_the_appendix_is_the_last_part_and_only_subsections() -> None:
    _, _, appendix = _parts()
    assert not re.search(r"^## ", _unfenced(appendix), re.M)
    assert len(re.findall(r"^### ", _unfenced(appendix), re.M)) >= 10
