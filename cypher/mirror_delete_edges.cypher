// Mirror: delete edges the embedded store no longer has.
// :params {rows: [{src: 'ep_1', type: 'SUPPORTS', dst: 'as_1'}]}
UNWIND $rows AS r
MATCH (s:Node {id: r.src})-[g:$(r.type)]->(d:Node {id: r.dst})
DELETE g
