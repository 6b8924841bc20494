"""The machine a run was measured on: numbers without it cannot be compared."""

from __future__ import annotations

import os
import platform
import subprocess
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from kg_memory.store.sqlite import driver

__all__ = ["Machine", "source_revision"]


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _ram_bytes() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


class Machine(BaseModel):
    model_config = ConfigDict(frozen=True)

    nproc: int
    ram_bytes: int | None
    cpu: str
    python: str
    platform: str
    sqlite: str

    @classmethod
    def current(cls) -> Machine:
        return cls(
            nproc=len(os.sched_getaffinity(0))
            if hasattr(os, "sched_getaffinity")
            else os.cpu_count() or 1,
            ram_bytes=_ram_bytes(),
            cpu=_cpu_model(),
            python=platform.python_version(),
            platform=platform.platform(),
            sqlite=driver.sqlite_version,
        )


def source_revision() -> str | None:
    """The git commit of the measured code (``+dirty`` with local edits), if in a checkout.

    Numbers move when the store changes, so a result names the code it measured.
    """
    root = Path(__file__).resolve().parents[2]
    try:
        head = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no", "kg_memory"],
            capture_output=True,
            text=True,
            timeout=5,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return f"{head}+dirty" if dirty else head
