// Forgetting: give an entity of a scope another display name when the one it had came from a
// forgotten mention, and another type when `type` is not null (the forgotten input gave it).
// :params {scope: 'u1', entity_id: 'ent_1', name: 'Zed Okafor', type: null}
MATCH (n:Entity {scope: $scope, entity_id: $entity_id})
SET n.name = $name, n.type = coalesce($type, n.type)
