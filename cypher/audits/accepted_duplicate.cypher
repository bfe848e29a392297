// Audit: accepted_duplicate
// Dedup keeps the best chain of a near-duplicate group and marks the others
// status 'duplicate' with a DUPLICATE_OF edge to the kept one. The two must
// agree: an 'accepted' chain with a DUPLICATE_OF edge leaks a duplicate into
// the dataset, and a 'duplicate' chain without one was dropped with no record
// of what it duplicates (a stale status from an earlier dedup run).
// Returns rows {chain_id, status, reason}.
MATCH (c:Chain)-[:DUPLICATE_OF]->(o:Chain)
WHERE c.status = 'accepted'
WITH c, o
ORDER BY o.id
WITH c, collect(o.id) AS kept
RETURN c.id AS chain_id, c.status AS status, 'accepted but DUPLICATE_OF ' + kept[0] AS reason
UNION
MATCH (c:Chain)
WHERE c.status = 'duplicate' AND NOT (c)-[:DUPLICATE_OF]->(:Chain)
RETURN c.id AS chain_id, c.status AS status, 'status duplicate but no DUPLICATE_OF edge' AS reason
