// Audit: redundant_hop
// Each hop must bring new evidence. Two hops of one chain that use the same
// evidence node, or evidence nodes joined by SIMILAR_TO with score >= 0.92
// (near-identical passages or figures), make one of the hops redundant: the
// chain is shorter than its hop count claims.
// Returns one row per offending chain: {chain_id, status, reason}.
MATCH (c:Chain)-[:HAS_HOP]->(h1:Hop)-[:USES]->(a)
MATCH (c)-[:HAS_HOP]->(h2:Hop)-[:USES]->(b)
WHERE h1.id < h2.id
OPTIONAL MATCH (a)-[s:SIMILAR_TO]-(b)
WITH c, h1, h2, a, b, max(s.score) AS similarity
WHERE a = b OR similarity >= 0.92
WITH c, h1, h2,
     CASE
       WHEN a = b THEN 'hops ' + toString(h1.index) + ' and ' + toString(h2.index) + ' both use ' + a.id
       ELSE 'hops ' + toString(h1.index) + ' and ' + toString(h2.index) + ' use near-identical evidence '
            + a.id + ' and ' + b.id + ' (SIMILAR_TO ' + toString(similarity) + ')'
     END AS reason
ORDER BY h1.index, h2.index
WITH c, collect(reason) AS reasons
RETURN c.id AS chain_id, c.status AS status, reasons[0] AS reason
ORDER BY chain_id
