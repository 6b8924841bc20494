"""Python's cyclic garbage collector, held off for the length of one bounded operation.

A forget cascade of a source with 1,000 derivatives allocates some 40,000 short-lived
containers (rows, links, revisions, keys) that reference counting frees, never a cycle of
its own making. The collector does not know that: each 700 allocations start a young
collection, and the survivors it promotes set off full collections, which walk every object
the process holds (the open store's caches, the caller's data). Measured at 1e4 (session 15):
about three full collections per five cascades, 33 ms of CPU per cascade of the cascade's
~380, and 40-45 ms with the young ones; the full ones grow with the caller's heap, not with
what the cascade does.

Why holding it off is safe and bounded here:

* reference counting still frees everything acyclic the instant it is dropped, so memory
  grows only by cyclic garbage made during the operation (an exception's traceback at most),
  and only until the operation ends;
* the operation is bounded by its own plan (one forget run, planned before it writes);
* it is re-enabled on the way out, exception or not, and a collection is not skipped but
  run once, on the next allocation past the threshold, over the few objects that survived;
* nesting and threads: a counter under a lock disables the collector on the first entry and
  enables it again on the last exit, and only if it was enabled to begin with (a caller that
  disabled it keeps it disabled). Another thread's allocations go uncollected while a forget
  runs in this one, for the same bounded time.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["paused_collection"]

_lock = threading.Lock()
_holders = 0
_was_enabled = False


@contextmanager
def paused_collection() -> Iterator[None]:
    """No automatic cyclic collection inside the block (see the module docstring)."""
    global _holders, _was_enabled
    with _lock:
        if _holders == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0 and _was_enabled:
                gc.enable()
