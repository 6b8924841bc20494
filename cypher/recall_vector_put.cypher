// Recall: store each revision's vector, only if it is still of this scope and still has the
// index text the vector's words were read beside (a rename re-indexes the text and drops the
// old vector).
// :params {scope: 'u1', rows: [{assertion_id: 'as_1', revision: 1, text: 'ana diet vegetarian', vector: [0.6, 0.8]}]}
UNWIND $rows AS row
MATCH (a:Assertion {assertion_id: row.assertion_id, revision: row.revision})
WHERE a.scope = $scope AND a.recall_text = row.text
SET a.recall_vector = row.vector
RETURN count(a) AS written
