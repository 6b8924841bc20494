// Insert an entity, or widen a known one: its owners become the ordered union of the known and
// the given owners, and a missing name is filled in. Nothing known is ever dropped. A placeholder
// node with the same id in the same scope (an earlier edge's endpoint) becomes the entity.
// :params {entity_id: 'R1', type: 'booking', name: null, scope: 'u1', owners: ['restaurant'], now: datetime('2026-02-14T20:00Z')}
MERGE (n:Node {scope: $scope, id: $entity_id})
WITH n, n:Entity AS known
SET n:Entity,
    n.entity_id = $entity_id,
    n.type = CASE WHEN known THEN n.type ELSE $type END,
    n.name = CASE WHEN known THEN coalesce(n.name, $name) ELSE $name END,
    n.owners = CASE
      WHEN known THEN reduce(acc = [], o IN n.owners + $owners |
                             CASE WHEN o IN acc THEN acc ELSE acc + o END)
      ELSE $owners
    END,
    n.recorded_at = CASE WHEN known THEN n.recorded_at ELSE $now END
