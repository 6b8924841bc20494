// Migration from schema 2: the next `size` typed edges whose `since` is still integer
// microseconds since the Unix epoch (read only; migrate_set_edges converts them).
// :params {size: 1000}
MATCH ()-[g]->()
WHERE g.since IS :: INTEGER NOT NULL
RETURN elementId(g) AS id, g.since AS since
LIMIT $size
