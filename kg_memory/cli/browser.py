"""``kg-memory neo4j style|cypher``: the Neo4j Browser style and the query library, as installed.

A user of the wheel has no checkout: ``docker/browser/kg-memory.grass`` and ``cypher/*.cypher``
are package data (:mod:`kg_memory.resources`), and these commands hand them over byte for byte,
printed (to paste into Browser) or copied into a folder the user owns. Output goes straight to
stdout, never through rich, so nothing is wrapped or read as markup.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from kg_memory import InvalidArgument, NotFound, resources
from kg_memory.cli import render

__all__ = ["STYLE_FILE", "cypher", "library", "style"]

#: The Browser style's file in the ``browser`` resource folder.
STYLE_FILE = "kg-memory.grass"

ForceOption = Annotated[bool, typer.Option(
    "--force", help="Overwrite a file that exists with other contents.")]


def library() -> dict[str, Path]:
    """The query library: each query's name (its file name without ``.cypher``) -> its file."""
    folder = resources.path("cypher")
    return {p.stem: p for p in sorted(folder.glob("*.cypher"))}


def _write(target: Path, text: str, *, force: bool) -> bool:
    """Write ``text`` to ``target``; False when it already held exactly that. A file with other
    contents (a user's edited copy, say) is kept unless ``force``: nothing of theirs is lost."""
    if target.is_dir():
        raise InvalidArgument(f"--out {target} is a folder; name the file to write")
    if target.exists():
        if target.read_bytes() == text.encode("utf-8"):
            return False
        if not force:
            raise InvalidArgument(f"{target} exists with other contents; --force overwrites it")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(text.encode("utf-8"))
    return True


def style(
    out: Annotated[Path | None, typer.Option(
        "--out", help="Write the style to this file instead of printing it.")] = None,
    force: ForceOption = False,
) -> None:
    """Print the Neo4j Browser style (kg-memory.grass), or write it to --out. In Browser, drag
    the file onto the window, or type :style followed by the file's contents; :style reset goes
    back to Browser's defaults."""
    with render.errors():
        text = (resources.path("browser") / STYLE_FILE).read_text(encoding="utf-8")
        if out is None:
            typer.echo(text, nl=False)
            return
        _write(out, text, force=force)
    # markup=False: a path may hold brackets, which rich would read as markup.
    render.console.print(f"wrote {out}", markup=False, highlight=False, soft_wrap=True)


def cypher(
    name: Annotated[str | None, typer.Argument(
        help="A query's name (asof, or asof.cypher) to print.", show_default=False)] = None,
    out: Annotated[Path | None, typer.Option(
        "--out", help="Copy every query into this folder (created if missing).")] = None,
    force: ForceOption = False,
) -> None:
    """List the query library, print one query, or copy them all. Every query is a file that
    runs as it is in Neo4j Browser: set its parameters with the // :params line at its top."""
    with render.errors():
        queries = library()
        if name is not None and out is not None:
            raise InvalidArgument("give a query's NAME to print or --out to copy all, not both")
        if name is not None:
            key = name.removesuffix(".cypher")
            if key not in queries:
                # Only names of the library are read: a path ("../browser/x") is no name.
                raise NotFound(f"no query {name!r} in the library; `kg-memory neo4j cypher` "
                               "lists them")
            typer.echo(queries[key].read_text(encoding="utf-8"), nl=False)
            return
        if out is None:
            typer.echo("\n".join(queries))
            return
        if out.exists() and not out.is_dir():
            raise InvalidArgument(f"--out {out} is a file; name a folder")
        texts = {key: path.read_text(encoding="utf-8") for key, path in queries.items()}
        # Every conflict is found before anything is written: a refused copy changes nothing.
        clashes = [str(out / f"{key}.cypher") for key, text in texts.items()
                   if (out / f"{key}.cypher").exists()
                   and (out / f"{key}.cypher").read_bytes() != text.encode("utf-8")]
        if clashes and not force:
            shown = ", ".join(clashes[:3]) + (", ..." if len(clashes) > 3 else "")
            raise InvalidArgument(f"{len(clashes)} file(s) exist with other contents ({shown});"
                                  " --force overwrites them")
        written = sum(_write(out / f"{key}.cypher", text, force=True)
                      for key, text in texts.items())
    render.console.print(f"copied {len(texts)} queries to {out} ({written} written, "
                         f"{len(texts) - written} already there)", markup=False,
                         highlight=False, soft_wrap=True)
