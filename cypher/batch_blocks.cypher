// Batch planning: the collection blocks in force in each of `scopes` (active_blocks for each).
// :params {scopes: ['acme']}
UNWIND $scopes AS scope
MATCH (b:Block {scope: scope})
WHERE b.revoked_at IS NULL
RETURN scope, b {.*} AS block
ORDER BY b.created_at, b.block_id
