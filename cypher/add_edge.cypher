// Record a typed edge once, with the system time it was first seen (`since`); a repeat is a
// no-op. Endpoints are :Node hubs by id; one that does not exist yet (an entity only named, a
// tombstone's id) is created as a bare placeholder and takes on its labels when it is written.
// Both ends are nodes of the unit's scope: an edge never joins two tenants. The existing edge
// is looked for among the start node's relationships (a MERGE on a dynamic type may be planned
// as a scan of every relationship); the unit holds the system-time lock, so no other writer
// adds the same edge meanwhile.
// :params {scope: 'u1', src: 'ep_1', type: 'SUPPORTS', dst: 'as_1', now: datetime('2026-02-14T20:00Z')}
MERGE (s:Node {scope: $scope, id: $src})
MERGE (d:Node {scope: $scope, id: $dst})
WITH s, d
WHERE NONE(x IN [(s)-[g]->(e) WHERE type(g) = $type | e] WHERE x = d)
CREATE (s)-[r:$($type)]->(d)
SET r.since = $now
