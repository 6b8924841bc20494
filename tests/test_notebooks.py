"""Every notebook under notebooks/ executes top to bottom without an error."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from tests.conftest import ROOT

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks() -> None:
    assert {"agent_loop.ipynb", "bookstore_lab.ipynb", "dinner_study.ipynb", "jo_cedar.ipynb",
            "neo4j_dinner.ipynb"} <= {
        p.name for p in NOTEBOOKS}


def _marks(path: Path) -> pytest.MarkDecorator | tuple[()]:
    return pytest.mark.neo4j if "neo4j" in path.name else ()


@pytest.mark.parametrize(
    "path", [pytest.param(p, marks=_marks(p), id=p.name) for p in NOTEBOOKS]
)
def test_notebook_runs(path: Path, tmp_path: Path) -> None:
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(
        notebook,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    ).execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    texts = " ".join(o.get("text", "") for o in outputs)
    expected = {"dinner_study.ipynb": "Writer + dependency", "jo_cedar.ipynb": "replay refused",
                "neo4j_dinner.ipynb": "refusals left: []",
                "agent_loop.ipynb": "day 81: the two memories of seed 000"}
    assert expected.get(path.name, "") in texts
