"""Peak resident memory of this process, per phase where the kernel allows it.

``resource.getrusage(...).ru_maxrss`` is the high-water mark of the whole process, so in a run
that measures 1e4 and then 1e6 it would report the larger phase for both. On Linux, writing
``5`` to ``/proc/self/clear_refs`` resets that mark, which lets each scale report its own peak.
Where that is not possible the process-wide figure is reported and labelled as such.
"""

from __future__ import annotations

import gc
import resource
import sys
from pathlib import Path

from pydantic import BaseModel, ConfigDict

__all__ = ["PeakRss", "current_rss_bytes", "reset_peak_rss"]

_CLEAR_REFS = Path("/proc/self/clear_refs")
_STATUS = Path("/proc/self/status")


def _status_kib(field: str) -> int | None:
    try:
        for line in _STATUS.read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def reset_peak_rss() -> bool:
    """Collect garbage and reset the kernel's high-water mark; ``False`` if unsupported."""
    gc.collect()
    try:
        _CLEAR_REFS.write_text("5")
    except OSError:
        return False
    return True


def current_rss_bytes() -> int | None:
    kib = _status_kib("VmRSS")
    return None if kib is None else kib * 1024


def _maxrss_bytes() -> int:
    # ru_maxrss is KiB on Linux and bytes on macOS.
    raw = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return raw if sys.platform == "darwin" else raw * 1024


class PeakRss(BaseModel):
    """The high-water mark since the last reset (``method`` says how it was obtained)."""

    model_config = ConfigDict(frozen=True)

    bytes: int
    method: str

    @classmethod
    def read(cls, *, was_reset: bool) -> PeakRss:
        hwm = _status_kib("VmHWM")
        if was_reset and hwm is not None:
            return cls(bytes=hwm * 1024, method="VmHWM since phase start (clear_refs)")
        return cls(bytes=_maxrss_bytes(), method="ru_maxrss, whole process so far")
