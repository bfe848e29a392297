// Writes of the corpus graph: Documents, Chunks, Images, Entities, Keypoints,
// Topics and the edges between them. Every query is an UNWIND batch over $rows;
// nodes MERGE on their content-hash id, so a re-run adds nothing.

// name: upsert_documents
// Document.title_source: where the title came from (metadata, heading, first_line, filename).
UNWIND $rows AS r
MERGE (n:Document {id: r.id})
SET n += r

// name: upsert_chunks
// Chunk.role: front_matter, contents, body, references, acknowledgements, appendix or
// boilerplate (kg/ingest/roles.py); chain evidence comes from [generate] evidence_roles.
// Chunk.cells: for tables, the JSON grid kg.ingest.tables.table_cells reads ("" otherwise).
UNWIND $rows AS r
MERGE (n:Chunk {id: r.id})
SET n += r

// name: upsert_images
// Image.visible_text: text printed inside a PDF figure (labels, legend, values), one line a line;
// Image.visible_lines: the same lines with their boxes (JSON), kg/ingest/pdf/figures.py;
// Image.bar_values: a bar chart's bars read by legend colour (JSON [[series, group, value, unit]]), bar_charts.py;
// Image.table_cells: a table pasted as a picture (JSON [[row label, column name, value]]), raster_tables.py.
UNWIND $rows AS r
MERGE (n:Image {id: r.id})
SET n += r

// name: upsert_entities
UNWIND $rows AS r
MERGE (n:Entity {id: r.id})
ON CREATE SET n.name = r.name, n.label = r.label, n.aliases = r.aliases
ON MATCH SET n.aliases = reduce(acc = coalesce(n.aliases, []), a IN r.aliases |
    CASE WHEN a IN acc THEN acc ELSE acc + a END)

// name: upsert_keypoints
UNWIND $rows AS r
MERGE (n:Keypoint {id: r.id})
SET n += r

// name: upsert_topics
UNWIND $rows AS r
MERGE (n:Topic {id: r.id})
SET n += r

// name: chunk_part_of
UNWIND $rows AS r
MATCH (a:Chunk {id: r.s})
MATCH (b:Document {id: r.d})
MERGE (a)-[:PART_OF]->(b)

// name: image_part_of
UNWIND $rows AS r
MATCH (a:Image {id: r.s})
MATCH (b:Document {id: r.d})
MERGE (a)-[:PART_OF]->(b)

// name: chunk_next
UNWIND $rows AS r
MATCH (a:Chunk {id: r.s})
MATCH (b:Chunk {id: r.d})
MERGE (a)-[:NEXT]->(b)

// name: chunk_references_image
UNWIND $rows AS r
MATCH (a:Chunk {id: r.s})
MATCH (b:Image {id: r.d})
MERGE (a)-[e:REFERENCES]->(b)
SET e.label = r.label

// name: chunk_references_chunk
UNWIND $rows AS r
MATCH (a:Chunk {id: r.s})
MATCH (b:Chunk {id: r.d})
MERGE (a)-[e:REFERENCES]->(b)
SET e.label = r.label

// name: image_captioned_by
UNWIND $rows AS r
MATCH (a:Image {id: r.s})
MATCH (b:Chunk {id: r.d})
MERGE (a)-[:CAPTIONED_BY]->(b)

// name: chunk_similar_chunk
UNWIND $rows AS r
MATCH (a:Chunk {id: r.s})
MATCH (b:Chunk {id: r.d})
MERGE (a)-[e:SIMILAR_TO]->(b)
SET e.score = r.score, e.cross_document = r.cross_document

// name: chunk_similar_image
UNWIND $rows AS r
MATCH (a:Chunk {id: r.s})
MATCH (b:Image {id: r.d})
MERGE (a)-[e:SIMILAR_TO]->(b)
SET e.score = r.score, e.cross_document = r.cross_document

// name: chunk_mentions
UNWIND $rows AS r
MATCH (a:Chunk {id: r.s})
MATCH (b:Entity {id: r.d})
MERGE (a)-[e:MENTIONS]->(b)
SET e.count = r.count

// name: image_mentions
UNWIND $rows AS r
MATCH (a:Image {id: r.s})
MATCH (b:Entity {id: r.d})
MERGE (a)-[e:MENTIONS]->(b)
SET e.count = r.count

// name: keypoint_mentions
UNWIND $rows AS r
MATCH (a:Keypoint {id: r.s})
MATCH (b:Entity {id: r.d})
MERGE (a)-[e:MENTIONS]->(b)
SET e.count = r.count

// name: chunk_has_keypoint
UNWIND $rows AS r
MATCH (a:Chunk {id: r.s})
MATCH (b:Keypoint {id: r.d})
MERGE (a)-[:HAS_KEYPOINT]->(b)

// name: image_has_keypoint
UNWIND $rows AS r
MATCH (a:Image {id: r.s})
MATCH (b:Keypoint {id: r.d})
MERGE (a)-[:HAS_KEYPOINT]->(b)

// Keypoint links of a write that are in the graph (write_keypoints checks none was lost).
// name: count_chunk_keypoint_links
UNWIND $rows AS r
MATCH (a:Chunk {id: r.s})-[:HAS_KEYPOINT]->(b:Keypoint {id: r.d})
RETURN count(*) AS n

// name: count_image_keypoint_links
UNWIND $rows AS r
MATCH (a:Image {id: r.s})-[:HAS_KEYPOINT]->(b:Keypoint {id: r.d})
RETURN count(*) AS n

// name: chunk_in_topic
UNWIND $rows AS r
MATCH (a:Chunk {id: r.s})
MATCH (b:Topic {id: r.d})
MERGE (a)-[:IN_TOPIC]->(b)

// name: clear_topics
MATCH (t:Topic)
DETACH DELETE t

// name: upsert_corpus_meta
UNWIND $rows AS r
MERGE (n:Corpus {id: r.id})
SET n += r

// name: document_states
MATCH (d:Document)
RETURN d.id AS id, d.ingested AS ingested, d.linked AS linked, d.partial AS partial

// name: chunk_similarity_edges_page
// The SIMILAR_TO edges of the next $limit chunks by id after $after (keyset
// paging, as in sync.cypher); a chunk with none gives one row with d null,
// so the caller still learns where the page ended.
MATCH (a:Chunk)
WHERE a.id > $after
WITH a
ORDER BY a.id
LIMIT $limit
OPTIONAL MATCH (a)-[e:SIMILAR_TO]->(b:Chunk)
RETURN a.id AS s, b.id AS d, e.score AS score
ORDER BY s

// name: document_mentions
UNWIND $rows AS r
MATCH (a:Document {id: r.s})
MATCH (b:Entity {id: r.d})
MERGE (a)-[e:MENTIONS]->(b)
SET e.count = r.count, e.source = r.source
