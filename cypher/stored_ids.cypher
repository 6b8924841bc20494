// The scope and id of every episode, fact and revision still stored (checked against node
// tombstones, which are keyed by both).
// :params {}
MATCH (n:Node)
WHERE n:Episode OR n:Fact
RETURN n.scope AS scope, n.id AS id
UNION
MATCH (a:Assertion)
RETURN DISTINCT a.scope AS scope, a.assertion_id AS id
