// JSON bodies of the stored documents of `kind` (in one scope and/or under one key, each null
// for any), oldest first.
// :params {kind: 'decision', scope: null, key: null}
MATCH (d:Document {kind: $kind})
WHERE ($scope IS NULL OR d.scope = $scope)
  AND ($key IS NULL OR d.key = $key)
RETURN d.body AS body
ORDER BY d.recorded_at, d.key
