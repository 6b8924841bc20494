// Mirror: drop revisions the embedded store no longer has (a revision written and replaced in
// one transaction never existed for readers).
// :params {facts: [{assertion_id: 'as_1', revisions: [1, 2]}]}
UNWIND $facts AS f
MATCH (a:Assertion {assertion_id: f.assertion_id})
WHERE NOT a.revision IN f.revisions
DETACH DELETE a
