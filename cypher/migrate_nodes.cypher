// Migration from schema 2: the next `size` nodes labelled `label` still in schema 2's layout
// (their `probe` property, an instant, is still integer microseconds since the Unix epoch).
// Read only; migrate_set_nodes writes them back converted, so running this again finds the rest.
// :params {label: 'Assertion', probe: 'sys_from', size: 1000}
MATCH (n:$($label))
WHERE n[$probe] IS :: INTEGER NOT NULL
RETURN elementId(n) AS id, n {.*} AS props
LIMIT $size
