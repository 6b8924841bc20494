// Which of many ids name an entity of one scope: a forget plan's orphan search asks about its
// candidates only, not every entity of the scope (the (scope, entity_id) key serves each).
// :params {ids: ['R1', 'ana'], scope: 'u1'}
UNWIND $ids AS id
MATCH (n:Entity {scope: $scope, entity_id: id})
RETURN n.entity_id AS entity_id
