"""What a store's batch planner does not plan, refused the same way on every backend.

A planned unit of work (:class:`~kg_memory.store.sqlite.planned.PlannedUnit`,
:class:`~kg_memory.store.neo4j.buffered.BufferedUnit`) answers the ingest path's reads from its
prefetch and buffers its writes; the forget, document and block operations are not planned.
Each of them raises :class:`~kg_memory.domain.errors.Unplanned` (or the backend's subclass)
before anything of the unit is written, so the store writes the batch so far and runs that
unit again on its own. One list here, so the two planners cannot drift apart on which
operations they refuse; the one exception is the embedded planner's, which plans the identity
documents' reads and writes (:mod:`kg_memory.store.sqlite.plan_documents`) and refuses the
rest of these as listed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import ClassVar, NoReturn

from kg_memory.domain.errors import Unplanned
from kg_memory.domain.model import Activity, Block, Tombstone

__all__ = ["UnplannedWrites"]


class UnplannedWrites:
    """Mixin: every operation the planners leave to a unit run on its own."""

    #: What the refusal raises (a backend may name its own subclass).
    refusal: ClassVar[type[Unplanned]] = Unplanned

    def _unplanned(self, what: str) -> NoReturn:
        raise self.refusal(f"{what} is not planned in a batch; the episode runs on its own")

    def delete_assertion(self, assertion_id: str) -> None:
        self._unplanned("delete_assertion")

    def delete_assertions(self, assertion_ids: list[str]) -> None:
        self._unplanned("delete_assertions")

    def delete_entity(self, entity_id: str) -> None:
        self._unplanned("delete_entity")

    def delete_entities(self, entity_ids: Sequence[str]) -> None:
        self._unplanned("delete_entities")

    def rename_entity(self, entity_id: str, name: str | None,
                      type_: str | None = None) -> None:
        self._unplanned("rename_entity")

    def rewrite_dependencies(self, renames: Mapping[str, str]) -> None:
        self._unplanned("rewrite_dependencies")

    def erase_episode(self, episode_id: str) -> None:
        self._unplanned("erase_episode")

    def redact_episode(self, episode_id: str, supports_to_drop: list[str]) -> None:
        self._unplanned("redact_episode")

    def replace_content(self, episode_id: str, content: str) -> None:
        self._unplanned("replace_content")

    def rewrite_refusal(self, episode_id: str, what: str, new_what: str) -> None:
        self._unplanned("rewrite_refusal")

    def forget_keys(self, keys: list[str]) -> None:
        self._unplanned("forget_keys")

    def next_generation(self) -> int:
        self._unplanned("next_generation")

    def add_tombstone(self, tombstone: Tombstone) -> None:
        self._unplanned("add_tombstone")

    def add_tombstones(self, keys: Sequence[tuple[str, str]], generation: int,
                       activity_id: str, created_at: datetime) -> None:
        self._unplanned("add_tombstones")

    def add_activity(self, activity: Activity) -> None:
        self._unplanned("add_activity")

    def add_block(self, block: Block) -> None:
        self._unplanned("add_block")

    def revoke_block(self, block_id: str) -> bool:
        self._unplanned("revoke_block")

    def put_document(self, kind: str, key: str, scope: str, body: str,
                     lookup: list[str] | None = None) -> None:
        self._unplanned("put_document")

    def documents_by(self, kind: str, scope: str, lookup: list[str]) -> list[str]:
        self._unplanned("documents_by")

    def delete_document(self, kind: str, key: str) -> None:
        self._unplanned("delete_document")
