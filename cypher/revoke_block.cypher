// Revoke an active collection block at `now`; `revoked` is 0 when there was none.
// :params {block_id: 'blk_1', scope: 'u1', now: 1767603600000000}
OPTIONAL MATCH (b:Block {block_id: $block_id, scope: $scope})
WHERE b.revoked_at IS NULL
SET b.revoked_at = $now
RETURN count(b) AS revoked
