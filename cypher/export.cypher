// Reads for `hopgraph export`: every hop of the given chains with its evidence
// resolved to a document and page. A Keypoint has no PART_OF edge, so its
// source chunk or image (HAS_KEYPOINT) supplies the document and page.
// A hop with several USES or BRIDGES edges gives several rows; the exporter
// keeps the one matching the hop's evidence_id / bridge_id.

// name: export_hops
MATCH (c:Chain)-[:HAS_HOP]->(h:Hop)
WHERE c.id IN $chain_ids
OPTIONAL MATCH (h)-[:USES]->(n)
OPTIONAL MATCH (n)-[:PART_OF]->(d:Document)
OPTIONAL MATCH (src)-[:HAS_KEYPOINT]->(n)
OPTIONAL MATCH (src)-[:PART_OF]->(sd:Document)
OPTIONAL MATCH (h)-[:BRIDGES]->(b:Entity)
RETURN c.id AS chain_id, h {.*} AS hop,
       n.id AS evidence_id, labels(n) AS evidence_labels, n.text AS text, n.source_id AS keypoint_source_id,
       n.path AS image_path, n.caption AS caption, n.description AS description,
       n.page AS page, n.page_start AS page_start, n.page_end AS page_end,
       d.id AS doc_id, d.path AS doc_path, d.title AS doc_title,
       src.id AS source_id, labels(src) AS source_labels, src.path AS source_image_path,
       src.caption AS source_caption, src.description AS source_description,
       src.page AS source_page, src.page_start AS source_page_start, src.page_end AS source_page_end,
       sd.id AS source_doc_id, sd.path AS source_doc_path, sd.title AS source_doc_title,
       b.id AS bridge_id, b.name AS bridge_name
ORDER BY chain_id, h.index, evidence_id, source_id, bridge_id

// name: export_chunk_topics
UNWIND $ids AS cid
MATCH (c:Chunk {id: cid})-[:IN_TOPIC]->(t:Topic)
RETURN c.id AS chunk_id, t.id AS topic_id
ORDER BY chunk_id, topic_id

// name: export_unit_keypoints
// The keypoints (HAS_KEYPOINT) of hop evidence units, for the CHARGE keypoints a hop carries.
UNWIND $ids AS uid
MATCH (n:Chunk {id: uid})-[:HAS_KEYPOINT]->(k:Keypoint)
RETURN uid AS unit_id, k.id AS id, k.text AS text, k.modality AS modality
UNION
UNWIND $ids AS uid
MATCH (n:Image {id: uid})-[:HAS_KEYPOINT]->(k:Keypoint)
RETURN uid AS unit_id, k.id AS id, k.text AS text, k.modality AS modality
