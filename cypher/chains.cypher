// Write-back of generated chains: Chain and Hop nodes, HAS_HOP, USES,
// BRIDGES and DUPLICATE_OF, plus the reads that dedup, stats and export need.
// Rejected chains are written too (status 'rejected', reject_reason set), so
// audits and statistics see everything that was generated.

// name: upsert_chains
UNWIND $rows AS r
MERGE (c:Chain {id: r.id})
SET c += r

// name: upsert_hops
// Hop.table_cell: for a hop answered by one table cell, JSON {row_label, column_label, value, unit};
// Hop.table_row: that cell's row label (the bridge into the table names it). A strict run's
// figure hop carries one too (its label; a strict fork's figure branch too, without figure_value), and instead of table_cell Hop.figure_value, JSON
// {label, value, figure}: the value a figure prints at a label (builders/chains/figure_walk.py).
UNWIND $rows AS r
MERGE (h:Hop {id: r.id})
SET h += r

// name: chain_has_hop
UNWIND $rows AS r
MATCH (c:Chain {id: r.s})
MATCH (h:Hop {id: r.d})
MERGE (c)-[e:HAS_HOP]->(h)
SET e.index = r.index

// name: hop_uses_chunk
UNWIND $rows AS r
MATCH (h:Hop {id: r.s})
MATCH (n:Chunk {id: r.d})
MERGE (h)-[:USES]->(n)

// name: hop_uses_image
UNWIND $rows AS r
MATCH (h:Hop {id: r.s})
MATCH (n:Image {id: r.d})
MERGE (h)-[:USES]->(n)

// name: hop_uses_keypoint
UNWIND $rows AS r
MATCH (h:Hop {id: r.s})
MATCH (n:Keypoint {id: r.d})
MERGE (h)-[:USES]->(n)

// name: hop_bridges
UNWIND $rows AS r
MATCH (h:Hop {id: r.s})
MATCH (e:Entity {id: r.d})
MERGE (h)-[:BRIDGES]->(e)

// name: chain_duplicate_of
UNWIND $rows AS r
MATCH (a:Chain {id: r.s})
MATCH (b:Chain {id: r.d})
MERGE (a)-[e:DUPLICATE_OF]->(b)
SET e.score = r.score, e.method = r.method

// name: set_chain_status
UNWIND $rows AS r
MATCH (c:Chain {id: r.id})
SET c.status = r.status, c.reject_reason = r.reject_reason

// name: clear_duplicates
MATCH (a:Chain)-[e:DUPLICATE_OF]->(:Chain)
DELETE e
WITH DISTINCT a
SET a.status = 'accepted'

// name: chain_ids
MATCH (c:Chain)
RETURN c.id AS id, c.status AS status, c.graph_type AS graph_type, c.hops AS hops

// name: chains_for_export
MATCH (c:Chain)
RETURN c {.*} AS chain
ORDER BY c.seq, c.id

// name: hops_for_export
MATCH (c:Chain)-[:HAS_HOP]->(h:Hop)
OPTIONAL MATCH (h)-[:USES]->(n)
OPTIONAL MATCH (n)-[:PART_OF]->(d:Document)
OPTIONAL MATCH (h)-[:BRIDGES]->(b:Entity)
RETURN c.id AS chain_id, h {.*} AS hop, n.id AS evidence_id, labels(n)[0] AS evidence_label,
       n.text AS text, n.path AS image_path, n.description AS description, n.page AS page,
       n.page_start AS page_start, d.id AS doc_id, d.path AS doc_path, b.id AS bridge_id, b.name AS bridge_name
ORDER BY chain_id, h.index

// name: duplicates_of
MATCH (a:Chain)-[e:DUPLICATE_OF]->(b:Chain)
RETURN a.id AS duplicate, b.id AS kept, e.score AS score

// Quality figures of accepted chains (builders/stats.py quality_figures).

// name: quality_hops
MATCH (c:Chain)-[:HAS_HOP]->(h:Hop)
WHERE c.status = 'accepted'
OPTIONAL MATCH (h)-[:USES]->(n:Chunk)
RETURN c.id AS chain_id, h.index AS idx, h.modality AS modality, h.answer AS answer,
       n.text AS text, n.role AS role, n.kind AS kind, h.table_cell AS table_cell,
       h.figure_value AS figure_value

// name: quality_chains
MATCH (c:Chain)
WHERE c.status = 'accepted'
OPTIONAL MATCH (e:Entity)
WHERE e.id IN c.answer_entities
RETURN c.id AS id, c.question AS question, c.answer AS answer, c.hops AS hops,
       e.name AS answer_name, e.label AS answer_label

// name: quality_bridge_df
MATCH (c:Chain)-[:HAS_HOP]->(h:Hop)-[:BRIDGES]->(e:Entity)
WHERE c.status = 'accepted'
MATCH (n)-[:MENTIONS]->(e)
MATCH (n)-[:PART_OF]->(d:Document)
RETURN h.id AS hop, e.id AS entity, count(DISTINCT d.id) AS df
