"""The local Neo4j builds in the user's cache, never beside its script.

``kg-memory neo4j up`` from a wheel ran Maven on the installed ``pom.xml``, so 140 MB of jars went
into site-packages (and the command failed on a read-only or system install). The launcher now
builds a copy of its sources in ``$KG_NEO4J_CACHE`` (default ``$XDG_CACHE_HOME/kg-memory/
neo4j-local``, else ``~/.cache/...``), keyed by a digest of those sources.

Here the launcher's folder is an installed copy made read-only, and ``mvn`` is a stand-in that
does what ``mvn package`` does to the file system (``target/`` with the jar, ``lib/`` and
``plugins/`` beside the pom named by ``-f``) without its minutes. The read-only folder is
compared file by file before and after, since permission bits do not stop root (CI runs as
root). The real Maven build and start from a read-only installed wheel run in ``.ci/wheel``.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LAUNCHER = ROOT / "docker" / "neo4j-local"

FAKE_MVN = """#!/usr/bin/env bash
set -euo pipefail
pom=pom.xml
while [ $# -gt 0 ]; do case "$1" in -f) pom="$2"; shift 2 ;; *) shift ;; esac; done
echo "$(cd "$(dirname "$pom")" && pwd)" >> "$MVN_LOG"
[ -z "${MVN_FAIL:-}" ] || { echo "[ERROR] BUILD FAILURE"; exit 1; }
sleep "${MVN_SECONDS:-0}"
target="$(dirname "$pom")/target"
mkdir -p "$target/lib" "$target/plugins" "$target/classes"
echo jar > "$target/neo4j-local-0.1.0.jar"
"""


def _tree(folder: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None)
            for p in sorted(folder.rglob("*"))}


def _chmod_tree(folder: Path, *, writable: bool) -> None:
    for p in [folder, *folder.rglob("*")]:
        mode = p.stat().st_mode
        p.chmod(mode | stat.S_IWUSR if writable else mode & ~0o222)


@pytest.fixture
def installed(tmp_path: Path) -> Iterator[Path]:
    """The launcher as a wheel installs it, read-only: the script, pom.xml and the sources."""
    folder = tmp_path / "site-packages" / "kg_memory" / "resources" / "neo4j_local"
    folder.mkdir(parents=True)
    shutil.copy2(LAUNCHER / "neo4j-local.sh", folder)
    shutil.copy2(LAUNCHER / "pom.xml", folder)
    shutil.copytree(LAUNCHER / "src", folder / "src")
    _chmod_tree(folder, writable=False)
    yield folder
    _chmod_tree(folder, writable=True)
    for p in tmp_path.rglob("*"):  # what the launcher wrote, so pytest can delete it
        if p.is_dir():
            p.chmod(p.stat().st_mode | stat.S_IWUSR)


def _run(script_dir: Path, tmp_path: Path, *args: str,
         **env: str) -> subprocess.CompletedProcess[str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    mvn = bin_dir / "mvn"
    mvn.write_text(FAKE_MVN, encoding="utf-8")
    mvn.chmod(0o755)
    base = {k: v for k, v in os.environ.items()
            if k not in {"XDG_CACHE_HOME", "KG_NEO4J_CACHE", "KG_NEO4J_HOME", "XDG_DATA_HOME"}}
    base.update(HOME=str(tmp_path / "home"), PATH=f"{bin_dir}:{os.environ['PATH']}",
                MVN_LOG=str(tmp_path / "mvn.log"))
    base.update(env)
    return subprocess.run(["bash", str(script_dir / "neo4j-local.sh"), *args], env=base,
                          capture_output=True, text=True, timeout=120, check=False)


def _build_dir(result: subprocess.CompletedProcess[str]) -> Path:
    match = re.search(r"building \(mvn -q -B package\) in (\S+) \.\.\.", result.stdout)
    assert match, result.stdout + result.stderr
    return Path(match.group(1))


@pytest.mark.parametrize(("env", "cache"), [
    ({}, "home/.cache/kg-memory/neo4j-local"),
    ({"XDG_CACHE_HOME": "{tmp}/xdg"}, "xdg/kg-memory/neo4j-local"),
    ({"KG_NEO4J_CACHE": "{tmp}/mine", "XDG_CACHE_HOME": "{tmp}/xdg"}, "mine"),
])
def test_the_build_goes_to_the_user_cache_and_nothing_beside_the_script(
        installed: Path, tmp_path: Path, env: dict[str, str], cache: str) -> None:
    before = _tree(installed)
    result = _run(installed, tmp_path, "build",
                  **{k: v.format(tmp=tmp_path) for k, v in env.items()})
    assert result.returncode == 0, result.stdout + result.stderr
    assert _tree(installed) == before
    build = _build_dir(result)
    assert build.parent == tmp_path / cache
    assert (build / "target" / "neo4j-local-0.1.0.jar").is_file()
    # Maven ran on a copy of the installed sources in the cache (built aside, then moved in).
    [ran_in] = (tmp_path / "mvn.log").read_text(encoding="utf-8").split()
    assert Path(ran_in).parent == build.parent
    assert sorted(p.name for p in build.parent.iterdir()) == [build.name]
    assert _tree(build / "src") == _tree(installed / "src")
    assert (build / "pom.xml").read_bytes() == (installed / "pom.xml").read_bytes()


def test_a_rebuild_replaces_the_copy_of_a_read_only_install(
        installed: Path, tmp_path: Path) -> None:
    first = _run(installed, tmp_path, "build")
    assert first.returncode == 0, first.stderr
    # The copy must not keep the install's read-only modes, or the rebuild could not delete it.
    copied = _build_dir(first) / "src" / "main" / "java" / "kgmemory" / "neo4jlocal"
    assert copied.stat().st_mode & stat.S_IWUSR
    second = _run(installed, tmp_path, "build")
    assert second.returncode == 0, second.stderr
    assert _build_dir(second) == _build_dir(first)
    assert sorted(p.name for p in _build_dir(first).parent.iterdir()) == [_build_dir(first).name]


def test_the_build_is_keyed_by_the_sources(installed: Path, tmp_path: Path) -> None:
    """The checkout and an install of the same sources share a build; changed sources (an
    upgrade) get a build of their own instead of the previous version's jars."""
    cache = str(tmp_path / "cache")
    here = _run(LAUNCHER, tmp_path, "build", KG_NEO4J_CACHE=cache)
    there = _run(installed, tmp_path, "build", KG_NEO4J_CACHE=cache)
    assert here.returncode == there.returncode == 0, here.stderr + there.stderr
    assert _build_dir(here) == _build_dir(there)
    upgraded = tmp_path / "upgraded"
    shutil.copytree(installed, upgraded)
    _chmod_tree(upgraded, writable=True)
    java = next(upgraded.rglob("Launcher.java"))
    java.write_text(java.read_text(encoding="utf-8") + "\n// next version\n", encoding="utf-8")
    other = _run(upgraded, tmp_path, "build", KG_NEO4J_CACHE=cache)
    assert other.returncode == 0, other.stderr
    assert _build_dir(other) != _build_dir(here)
    assert (_build_dir(here) / "target" / "neo4j-local-0.1.0.jar").is_file()


def test_a_failed_build_leaves_nothing_half_built(installed: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    result = _run(installed, tmp_path, "build", KG_NEO4J_CACHE=str(cache), MVN_FAIL="1")
    assert result.returncode == 1
    assert "build failed" in result.stderr
    assert list(cache.iterdir()) == []


def test_two_builds_at_once_leave_one_whole_build(installed: Path, tmp_path: Path) -> None:
    """Two first starts of the same sources (a checkout and a wheel, two terminals) share the
    cache: both succeed, and it ends with one build and no temporary folder."""
    cache = tmp_path / "cache"
    env = {k: v for k, v in os.environ.items() if k != "XDG_CACHE_HOME"}
    bin_dir = tmp_path / "bin"
    _run(installed, tmp_path, "status", KG_NEO4J_CACHE=str(cache))  # writes the stand-in mvn
    env.update(HOME=str(tmp_path / "home"), PATH=f"{bin_dir}:{os.environ['PATH']}",
               MVN_LOG=str(tmp_path / "mvn.log"), KG_NEO4J_CACHE=str(cache), MVN_SECONDS="2")
    builds = [subprocess.Popen(["bash", str(installed / "neo4j-local.sh"), "build"], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
              for _ in range(2)]
    outputs = [b.communicate(timeout=120)[0] for b in builds]
    assert [b.returncode for b in builds] == [0, 0], outputs
    assert len((tmp_path / "mvn.log").read_text(encoding="utf-8").split()) == 2  # both ran
    [build] = list(cache.iterdir())
    assert (build / "target" / "neo4j-local-0.1.0.jar").is_file()
    assert sorted(p.name for p in build.iterdir()) == ["pom.xml", "src", "target"]
