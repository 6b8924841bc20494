// Recall: give a just-written revision its indexed text (the recall_facts full-text index
// follows the property) and its token count for BM25.
// :params {assertion_id: 'as_1', revision: 1, text: 'ana diet vegetarian', length: 3}
MATCH (a:Assertion {assertion_id: $assertion_id, revision: $revision})
SET a.recall_text = $text, a.recall_length = $length
