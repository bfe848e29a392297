// Reads for dataset statistics (builders/stats.py) and topic coverage
// (builders/coverage.py).

// name: chains_for_stats
MATCH (c:Chain)
RETURN c.id AS id, c.status AS status, c.graph_type AS graph_type, c.hops AS hops,
       c.reject_reason AS reject_reason, c.doc_ids AS doc_ids, c.evidence_ids AS evidence_ids
ORDER BY id

// name: accepted_hop_modalities
MATCH (c:Chain)-[:HAS_HOP]->(h:Hop)
WHERE c.status = 'accepted'
RETURN h.modality AS modality, count(h) AS n
ORDER BY modality

// name: count_duplicate_edges
MATCH (:Chain)-[e:DUPLICATE_OF]->(:Chain)
RETURN count(e) AS n

// name: document_ids
MATCH (d:Document)
RETURN d.id AS id
ORDER BY id

// name: corpus_topic_sizes
MATCH (c:Chunk)-[:IN_TOPIC]->(t:Topic)
RETURN t.id AS topic_id, count(c) AS n
ORDER BY topic_id

// name: topics_of_chunks
UNWIND $ids AS id
MATCH (c:Chunk {id: id})-[:IN_TOPIC]->(t:Topic)
RETURN id AS chunk_id, t.id AS topic_id

// name: topics_of_image_captions
UNWIND $ids AS id
MATCH (i:Image {id: id})-[:CAPTIONED_BY]->(c:Chunk)-[:IN_TOPIC]->(t:Topic)
RETURN id AS image_id, c.id AS chunk_id, t.id AS topic_id

// name: topics_of_image_references
UNWIND $ids AS id
MATCH (c:Chunk)-[:REFERENCES]->(i:Image {id: id})
MATCH (c)-[:IN_TOPIC]->(t:Topic)
RETURN id AS image_id, c.id AS chunk_id, t.id AS topic_id

// name: keypoint_sources
UNWIND $ids AS id
MATCH (s)-[:HAS_KEYPOINT]->(k:Keypoint {id: id})
RETURN id AS keypoint_id, s.id AS source_id, labels(s)[0] AS source_label
