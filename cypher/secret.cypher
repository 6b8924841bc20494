// The store-local key of its tombstone hashes: created once (from the caller's fresh random
// value), then always the same. Never part of any edge or export.
// :params {fresh: '00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff'}
MERGE (m:Meta {key: 'tombstone_secret'})
  ON CREATE SET m.value = $fresh
RETURN m.value AS value
