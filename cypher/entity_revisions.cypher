// Recall: every revision of a scope whose indexed text names an entity (its subject or project
// entity), so its text can be built again after the entity's name changed.
// :params {scope: 'u1', entity_id: 'ana'}
MATCH (a:Assertion)
WHERE a.scope = $scope AND (a.subject = $entity_id OR a.project = $entity_id)
RETURN a {.*, recall_vector: null} AS version
