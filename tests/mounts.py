"""Read-only and full file systems for the tests, set up for real and always taken down.

A read-only file is a read-only bind mount of it when the tests run as root (CI does: root
writes through a file's mode bits), its mode bits otherwise. A read-only or full directory is
a small tmpfs, which needs root. A set-up that cannot be made fails the test: a store test
that silently skips its hostile case proves nothing (.ci/run runs as root).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

__all__ = ["fill", "read_only_file", "read_only_mount", "remount_read_only", "tmpfs"]


def _run(*argv: str) -> None:
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.fail(f"cannot set up the file system for this test ({' '.join(argv)}: "
                    f"{done.stderr.strip()}); it needs root, as in CI")


@contextmanager
def tmpfs(where: Path, size_kib: int) -> Iterator[Path]:
    """A tmpfs of ``size_kib`` KiB mounted at ``where`` for the block."""
    where.mkdir(parents=True, exist_ok=True)
    _run("mount", "-t", "tmpfs", "-o", f"size={size_kib}k", "tmpfs", str(where))
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def remount_read_only(mounted: Path) -> None:
    """Make the tmpfs at ``mounted`` read-only (it is taken down by :func:`tmpfs`)."""
    _run("mount", "-o", "remount,ro", str(mounted))


@contextmanager
def read_only_mount(store: Path, where: Path) -> Iterator[Path]:
    """A copy of ``store`` (closed, so without a journal) on a tmpfs mounted read-only."""
    with tmpfs(where, 64 * 1024) as mounted:
        copy = mounted / store.name
        shutil.copyfile(store, copy)
        remount_read_only(mounted)
        yield copy


@contextmanager
def read_only_file(store: Path) -> Iterator[Path]:
    """``store`` itself read-only, in a directory that stays writable."""
    if os.geteuid() != 0:
        store.chmod(0o444)
        yield store
        return
    _run("mount", "--bind", str(store), str(store))
    try:
        _run("mount", "-o", "remount,bind,ro", str(store))
        yield store
    finally:
        subprocess.run(["umount", str(store)], check=False)


def fill(directory: Path, leave: int) -> None:
    """Fill ``directory``'s file system until ``leave`` bytes are free (to its block size)."""
    stats = os.statvfs(directory)
    free = stats.f_bavail * stats.f_frsize
    with (directory / "filler").open("wb") as handle:
        handle.write(b"\0" * max(free - leave, 0))
