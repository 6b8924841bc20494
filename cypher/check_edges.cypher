// Integrity check: every typed edge (the graph's own bookkeeping left out), for `kg-memory
// check` to find edges whose ends are not stored (read only).
// :params {}
MATCH (s:Node)-[r]->(d:Node)
WHERE NOT type(r) IN ['REVISION_OF_FACT', 'NEEDS', 'REFUSED']
RETURN s.id AS src, type(r) AS type, d.id AS dst, r.since AS since
