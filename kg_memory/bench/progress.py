"""Progress events, so a command can draw a bar while a long scale runs."""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel, ConfigDict

__all__ = ["BenchProgress", "ProgressCallback"]


class BenchProgress(BaseModel):
    """``done`` of ``total`` units of ``phase`` at ``scale``, for progress bars."""

    model_config = ConfigDict(frozen=True)

    scale: int
    phase: str
    done: int
    total: int


ProgressCallback = Callable[[BenchProgress], None]
