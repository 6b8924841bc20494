// The collection blocks in force in one scope.
// :params {scope: 'acme'}
MATCH (b:Block {scope: $scope})
WHERE b.revoked_at IS NULL
RETURN b {.*} AS block
ORDER BY b.created_at, b.block_id
