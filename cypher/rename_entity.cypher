// Forgetting: give an entity another display name when the one it had came from a forgotten
// mention.
// :params {entity_id: 'ent_1', name: 'Zed Okafor'}
MATCH (n:Entity {entity_id: $entity_id})
SET n.name = $name
