// Reads for dedup (builders/dedup.py). Writes reuse chains.cypher
// (clear_duplicates, chain_duplicate_of, set_chain_status).

// name: dedup_candidates
MATCH (c:Chain)
WHERE c.status IN ['accepted', 'duplicate']
RETURN c.id AS id, c.seq AS seq, c.status AS status, c.question AS question, c.answer AS answer,
       c.evidence_ids AS evidence_ids, c.doc_ids AS doc_ids, c.hops AS hops, c.score AS score,
       c.graph_type AS graph_type, c.merged_from AS merged_from
ORDER BY id
