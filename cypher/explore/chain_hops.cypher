// Explore (table): one chain hop by hop: sub-question, answer, the evidence it
// USES with its Document, and the bridge entity it hands to the next hop.
// Set the parameter first:  :param chain_id => '<a chain id>'
// Also the read behind `hopgraph audit --explain` (scalars and maps only).
MATCH (c:Chain {id: $chain_id})
OPTIONAL MATCH (c)-[:DUPLICATE_OF]->(o:Chain)
WITH c, collect(o.id) AS duplicate_of
OPTIONAL MATCH (c)-[:HAS_HOP]->(h:Hop)
OPTIONAL MATCH (h)-[:USES]->(ev)
OPTIONAL MATCH (ev)-[:PART_OF]->(d:Document)
OPTIONAL MATCH (ev)-[:CAPTIONED_BY]->(cap:Chunk)
OPTIONAL MATCH (src)-[:HAS_KEYPOINT]->(ev)
OPTIONAL MATCH (src)-[:PART_OF]->(sd:Document)
OPTIONAL MATCH (h)-[:BRIDGES]->(b:Entity)
RETURN c {.*} AS chain, duplicate_of, h {.*} AS hop,
       ev.id AS evidence_id, labels(ev)[0] AS evidence_label,
       ev.text AS text, ev.path AS image_path, ev.caption AS caption, ev.description AS description,
       cap.text AS caption_text, coalesce(ev.page, ev.page_start) AS page,
       coalesce(d.id, sd.id) AS doc_id, coalesce(d.path, sd.path) AS doc_path, coalesce(d.title, sd.title) AS doc_title,
       b.id AS bridge_id, b.name AS bridge_name
ORDER BY h.index, evidence_id, bridge_id
