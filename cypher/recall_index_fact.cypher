// Recall: give a just-written revision its indexed text (the recall_facts full-text index
// follows the property) and its token count for BM25. A changed text (an entity renamed)
// drops the revision's vector, which was made from the old text: the next hybrid recall
// embeds it again.
// :params {assertion_id: 'as_1', revision: 1, text: 'ana diet vegetarian', length: 3}
MATCH (a:Assertion {assertion_id: $assertion_id, revision: $revision})
WITH a, a.recall_text IS NOT NULL AND a.recall_text = $text AS same
SET a.recall_text = $text, a.recall_length = $length,
    a.recall_vector = CASE WHEN same THEN a.recall_vector ELSE null END
