// Every revision of each assertion, in system-time order.
// :params {ids: ['as_1']}
MATCH (a:Assertion)
WHERE a.assertion_id IN $ids
RETURN a {.*, recall_vector: null} AS version
ORDER BY a.sys_from, a.valid_from, a.assertion_id, a.revision
