// Mirror: delete edges the embedded store no longer has.
// :params {rows: [{scope: 'u1', src: 'ep_1', type: 'SUPPORTS', dst: 'as_1'}]}
UNWIND $rows AS r
MATCH (s:Node {scope: r.scope, id: r.src})-[g:$(r.type)]->(d:Node {scope: r.scope, id: r.dst})
DELETE g
