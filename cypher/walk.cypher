// Reads that build the in-memory projection the walkers sample chains from
// (queries/corpus_view.py). One pass per node and edge kind, scalars only.

// name: walk_chunks
MATCH (c:Chunk)
RETURN c.id AS id, c.doc_id AS doc_id, c.kind AS kind, c.text AS text, c.label AS label,
       c.page_start AS page, c.role AS role, c.cells AS cells
ORDER BY c.doc_id, c.index

// name: walk_images
MATCH (i:Image)
RETURN i.id AS id, i.doc_id AS doc_id, i.caption AS caption, i.description AS description,
       i.label AS label, i.page AS page, i.path AS path, i.description_source AS description_source,
       i.visible_text AS visible_text, i.visible_lines AS visible_lines,
       i.bar_values AS bar_values, i.table_cells AS table_cells

// name: walk_documents
MATCH (d:Document)
RETURN d.id AS id, d.title AS title, d.path AS path

// name: walk_entities
MATCH (e:Entity)
RETURN e.id AS id, e.name AS name, e.label AS label, e.aliases AS aliases

// name: walk_chunk_mentions
MATCH (c:Chunk)-[m:MENTIONS]->(e:Entity)
RETURN c.id AS node, e.id AS entity, m.count AS count

// name: walk_image_mentions
MATCH (i:Image)-[m:MENTIONS]->(e:Entity)
RETURN i.id AS node, e.id AS entity, m.count AS count

// name: walk_keypoints
MATCH (n)-[:HAS_KEYPOINT]->(k:Keypoint)
OPTIONAL MATCH (k)-[:MENTIONS]->(e:Entity)
RETURN k.id AS id, n.id AS source_id, k.text AS text, k.modality AS modality,
       collect(e.id) AS entities

// name: walk_similar
MATCH (a)-[s:SIMILAR_TO]->(b)
RETURN a.id AS s, b.id AS d, s.score AS score

// name: walk_references
MATCH (c:Chunk)-[r:REFERENCES]->(i:Image)
RETURN c.id AS chunk, i.id AS image, r.label AS label

// name: walk_captions
MATCH (i:Image)-[:CAPTIONED_BY]->(c:Chunk)
RETURN i.id AS image, c.id AS chunk

// name: walk_topics
MATCH (c:Chunk)-[:IN_TOPIC]->(t:Topic)
RETURN c.id AS chunk, t.id AS topic

// name: corpus_meta
MATCH (m:Corpus)
RETURN m.domain AS domain, m.persona AS persona, m.generator AS generator, m.document_personas AS document_personas

// name: walk_topic_keywords
// The corpus's topics, largest first, for the domain and persona named at generate time.
MATCH (t:Topic)
RETURN t.id AS id, t.keywords AS keywords, t.size AS size
ORDER BY size DESC, id
