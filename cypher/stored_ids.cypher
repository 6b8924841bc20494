// The ids of every episode, fact and revision still stored (checked against node tombstones).
// :params {}
MATCH (n:Node)
WHERE n:Episode OR n:Fact
RETURN n.id AS id
UNION
MATCH (a:Assertion)
RETURN DISTINCT a.assertion_id AS id
