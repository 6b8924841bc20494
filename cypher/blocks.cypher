// Collection blocks, active and revoked (of one scope, or of all when null).
// :params {scope: null}
MATCH (b:Block)
WHERE $scope IS NULL OR b.scope = $scope
RETURN b {.*} AS block
ORDER BY b.created_at, b.block_id
