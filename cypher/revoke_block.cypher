// Revoke an active collection block at `now`; `revoked` is 0 when there was none.
// :params {block_id: 'blk_1', scope: 'u1', now: datetime('2026-02-14T20:00Z')}
OPTIONAL MATCH (b:Block {block_id: $block_id, scope: $scope})
WHERE b.revoked_at IS NULL
SET b.revoked_at = $now
RETURN count(b) AS revoked
