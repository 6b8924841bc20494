// The keys of node tombstones: keyed hashes of the ids forget runs erased.
// :params {}
MATCH (t:Tombstone {kind: 'node'})
RETURN collect(t.key) AS keys
