// The names of those of many ids that are entities of one scope and have one: a forget reads
// the names it erases, not every entity of the tenant (the (scope, entity_id) key serves each).
// :params {ids: ['R1', 'ana'], scope: 'u1'}
UNWIND $ids AS id
MATCH (n:Entity {scope: $scope, entity_id: id})
WHERE n.name IS NOT NULL
RETURN n.entity_id AS entity_id, n.name AS name
