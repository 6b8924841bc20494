// Collection blocks of one scope, active and revoked (recall reads them on every request;
// blocks.cypher lists every scope's).
// :params {scope: 'u1'}
MATCH (b:Block {scope: $scope})
USING INDEX SEEK b:Block(scope)
RETURN b {.*} AS block
ORDER BY b.created_at, b.block_id
