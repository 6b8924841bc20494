// The activities the store ran (of one type, 'consolidation' or 'forget', or all when null).
// :params {type: null}
MATCH (a:Activity)
WHERE $type IS NULL OR a.type = $type
RETURN a {.*} AS activity
ORDER BY a.started_at, a.activity_id
