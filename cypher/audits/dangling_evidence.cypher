// Audit: dangling_evidence
// Every claim in a dataset record must point at something in the graph:
//   * a Hop whose evidence_id is set must USE the node with that id (a missing
//     USES edge means the evidence was never written, was deleted by a
//     re-ingest, or the id is wrong; the record's supporting fact is then
//     unverifiable);
//   * a Chain's HAS_HOP edges must number exactly its `hops` property (a
//     lost or extra hop means the stored chain is not the verified one).
// Hops reachable from no Chain are reported under their chain_id property.
// Returns rows {chain_id, status, reason}.
MATCH (h:Hop)
WHERE coalesce(h.evidence_id, '') <> ''
OPTIONAL MATCH (h)-[:USES]->(n)
WITH h, collect(n.id) AS used
WHERE NOT h.evidence_id IN used
OPTIONAL MATCH (c:Chain)-[:HAS_HOP]->(h)
WITH coalesce(c.id, h.chain_id) AS chain_id, c.status AS status,
     'hop ' + toString(h.index) + ' has evidence_id ' + h.evidence_id + ' but no USES edge to it' AS reason
ORDER BY reason
WITH chain_id, status, collect(reason) AS reasons
RETURN chain_id, status, reasons[0] AS reason
UNION
MATCH (c:Chain)
OPTIONAL MATCH (c)-[:HAS_HOP]->(h:Hop)
WITH c, count(DISTINCT h) AS linked
WHERE c.hops IS NULL OR linked <> c.hops
RETURN c.id AS chain_id, c.status AS status,
       'chain has ' + toString(linked) + ' HAS_HOP edges but hops = ' + coalesce(toString(c.hops), '(unset)') AS reason
