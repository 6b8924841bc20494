// Recall's backfill: whether this store was already backfilled (`mark`: record that it is now).
// :params {mark: false}
MERGE (m:Meta {key: 'recall_backfilled'})
ON CREATE SET m.value = CASE WHEN $mark THEN 'yes' ELSE null END
WITH m
SET m.value = CASE WHEN $mark THEN 'yes' ELSE m.value END
RETURN m.value = 'yes' AS done
