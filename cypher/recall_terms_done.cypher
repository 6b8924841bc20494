// Recall's terms: whether this store's recall text holds the terms version `terms`
// (kg_memory.domain.recall_text.TERMS); `mark`: record that it does now.
// :params {terms: 'snowball-english-1', mark: false}
MERGE (m:Meta {key: 'recall_terms'})
WITH m, coalesce(m.value = $terms, false) AS held
SET m.value = CASE WHEN $mark THEN $terms ELSE m.value END
RETURN held OR $mark AS done
