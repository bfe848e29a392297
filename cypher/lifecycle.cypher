// A corpus that changes: documents are identified by their path, their
// content hash (Document.id) says whether they changed. Replacing or removing
// a document marks the chains that quoted it `stale` first, then deletes its
// keypoints, its chunks and images (with every edge on them: NEXT, SIMILAR_TO,
// MENTIONS, REFERENCES, IN_TOPIC, USES), then the Document itself, so a run
// killed half way leaves the Document for the next run to remove again.

// name: document_paths
MATCH (d:Document)
RETURN d.id AS id, d.path AS path, d.ingested AS ingested, d.linked AS linked, d.partial AS partial
ORDER BY path

// name: move_documents
// A renamed file: same content (id), new path.
UNWIND $rows AS r
MATCH (d:Document {id: r.id})
SET d.path = r.path

// name: mark_chains_stale
// Chains with evidence (a chunk, an image, or a keypoint of either) in the documents.
UNWIND $rows AS r
MATCH (d:Document {id: r.id})<-[:PART_OF]-(n)
OPTIONAL MATCH (n)-[:HAS_KEYPOINT]->(k:Keypoint)
WITH r, collect(DISTINCT n) + collect(DISTINCT k) AS evidence
UNWIND evidence AS e
MATCH (c:Chain)-[:HAS_HOP]->(:Hop)-[:USES]->(e)
WHERE c.status <> 'stale'
WITH DISTINCT c, r
SET c.stale_from = c.status, c.status = 'stale', c.stale_reason = r.reason
RETURN count(c) AS chains

// name: release_stale_duplicates
// A stale chain leaves dedup: its DUPLICATE_OF edges go (dedup's clear_duplicates
// would otherwise set it back to accepted), and a chain that was a duplicate of
// it only is accepted again, for the next dedup to group afresh.
MATCH (:Chain {status: 'stale'})-[e:DUPLICATE_OF]-(:Chain)
WITH DISTINCT e
DELETE e
WITH count(*) AS removed
MATCH (other:Chain {status: 'duplicate'})
WHERE NOT (other)-[:DUPLICATE_OF]->(:Chain)
SET other.status = 'accepted'
RETURN count(other) AS released

// name: delete_document_keypoints
UNWIND $rows AS r
MATCH (:Document {id: r.id})<-[:PART_OF]-()-[:HAS_KEYPOINT]->(k:Keypoint)
DETACH DELETE k

// name: delete_document_parts
UNWIND $rows AS r
MATCH (:Document {id: r.id})<-[:PART_OF]-(n)
DETACH DELETE n

// name: delete_documents
UNWIND $rows AS r
MATCH (d:Document {id: r.id})
DETACH DELETE d

// name: delete_orphan_entities
// Entities nothing mentions any more, unless a hop still names them as its bridge.
MATCH (e:Entity)
WHERE NOT (e)<-[:MENTIONS]-() AND NOT (e)<-[:BRIDGES]-()
DETACH DELETE e
RETURN count(e) AS entities

// name: count_distinct_accepted
// The records a dataset export gives: accepted chains (not duplicate, rejected or stale).
MATCH (c:Chain)
WHERE c.status = 'accepted'
RETURN count(c) AS n
