// Migration from schema 2: replace the properties of each node (by element id) with its
// converted ones (instants as DATETIME, values as their own type, qualifiers as properties).
// :params {rows: [{id: '4:00000000-0000-0000-0000-000000000000:0', props: {sys_from: datetime('2026-02-14T20:00Z')}}]}
UNWIND $rows AS r
MATCH (n)
WHERE elementId(n) = r.id
SET n = r.props
