// Before commit: the :Fact hubs of assertions whose every revision this transaction wrote and
// then replaced (never visible to anyone) go, with every edge naming them, so no SUPPORTS,
// ABOUT or SUPERSEDES edge is left pointing at a fact no one can read.
// :params {ids: ['as_1']}
UNWIND $ids AS id
MATCH (f:Fact {id: id})
WHERE NOT EXISTS { (f)<-[:REVISION_OF_FACT]-(:Assertion) }
DETACH DELETE f
