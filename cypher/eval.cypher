// Reads for `hopgraph eval`: the evidence units a retriever searches (chunks,
// and images through their description or caption), their documents, the
// edges the graph retriever expands along, keypoints and topics.
// Vectors come back as lists of floats; a unit without one is embedded again.

// name: eval_chunks
MATCH (c:Chunk)
RETURN c.id AS id, c.doc_id AS doc_id, c.text AS text, c.kind AS kind, c.role AS role,
       c.embedding AS vector
ORDER BY c.doc_id, c.index

// name: eval_images
MATCH (i:Image)
RETURN i.id AS id, i.doc_id AS doc_id, i.description AS description, i.caption AS caption,
       i.path AS path
ORDER BY i.doc_id, i.id

// name: eval_documents
MATCH (d:Document)
RETURN d.id AS id, d.path AS path, d.title AS title

// name: eval_similar_edges
MATCH (a)-[e:SIMILAR_TO]->(b)
RETURN a.id AS s, b.id AS d, e.score AS score

// name: eval_reference_edges
MATCH (a:Chunk)-[:REFERENCES]->(b)
RETURN a.id AS s, b.id AS d
UNION
MATCH (a:Image)-[:CAPTIONED_BY]->(b:Chunk)
RETURN a.id AS s, b.id AS d

// name: eval_mentions
MATCH (n)-[:MENTIONS]->(e:Entity)
WHERE n:Chunk OR n:Image
RETURN n.id AS node, e.id AS entity

// name: eval_keypoint_sources
MATCH (n)-[:HAS_KEYPOINT]->(k:Keypoint)
RETURN k.id AS keypoint, n.id AS source, k.text AS text

// name: eval_chunk_topics
MATCH (c:Chunk)-[:IN_TOPIC]->(t:Topic)
RETURN c.id AS chunk, t.id AS topic

// name: eval_entity_names
MATCH (e:Entity)
WHERE e.aliases IS NOT NULL AND size(e.aliases) > 0
RETURN e.id AS id, e.name AS name, e.aliases AS aliases
