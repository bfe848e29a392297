// Audit: broken_bridge
// A bridge is the entity that hop i hands over to hop i+1 ((Hop)-[:BRIDGES]->(Entity)).
// It only joins the two hops if the evidence of BOTH hops mentions it:
// (evidence)-[:MENTIONS]->(Entity), where an Image also counts the mentions of
// its caption chunk ((Image)-[:CAPTIONED_BY]->(Chunk)-[:MENTIONS]->(Entity)).
// Forks (parallel_visual_textual_fork) join their branches on a shared entity:
// there the last hop bridges the same entity as another hop, and that other
// hop stands in for the missing hop i+1. A bridge missing from either side, or
// a last-hop bridge that no other hop shares, means the chain is not a real
// multi-hop walk: the sub-questions are glued together by the verbalizer, not
// by the documents. A table hop (h.table_row set: its answer is one cell,
// builders/chains/tables.py) names its bridge by the row label, which
// entity extraction on table text often misses: there the row label must
// contain the entity's name or an alias (on either side: a strict fork's figure
// branch prints its subject as a label).
// A strict fork (c.fork set: builders/chains/fork_walk.py) compares two values,
// not a walk: each branch bridges the subject its own value is about, and two
// rivals' branches name different subjects. There only the branch's own
// evidence must mention its subject; no other hop has to.
// Returns one row per offending chain: {chain_id, status, reason}.
MATCH (c:Chain)-[:HAS_HOP]->(h:Hop)-[:BRIDGES]->(e:Entity)
OPTIONAL MATCH (c)-[:HAS_HOP]->(nxt:Hop)
WHERE nxt.index = h.index + 1
OPTIONAL MATCH (c)-[:HAS_HOP]->(twin:Hop)-[:BRIDGES]->(e)
WHERE nxt IS NULL AND twin <> h
WITH c, h, e, coalesce(nxt, twin) AS partner
OPTIONAL MATCH (h)-[:USES]->(ev)
WHERE (ev)-[:MENTIONS]->(e) OR (ev)-[:CAPTIONED_BY]->(:Chunk)-[:MENTIONS]->(e)
WITH c, h, e, partner, count(ev) AS here
OPTIONAL MATCH (partner)-[:USES]->(ev2)
WHERE (ev2)-[:MENTIONS]->(e) OR (ev2)-[:CAPTIONED_BY]->(:Chunk)-[:MENTIONS]->(e)
WITH c, h, e, partner, here, count(ev2) AS there
WITH c, h, e, partner,
     here + CASE WHEN h.table_row IS NOT NULL
                  AND any(n IN [e.name] + coalesce(e.aliases, []) WHERE toLower(h.table_row) CONTAINS toLower(n))
             THEN 1 ELSE 0 END AS here,
     there + CASE WHEN partner.table_row IS NOT NULL
                   AND any(n IN [e.name] + coalesce(e.aliases, []) WHERE toLower(partner.table_row) CONTAINS toLower(n))
              THEN 1 ELSE 0 END AS there
WITH c, h, e, partner, here, there, coalesce(c.fork, '') <> '' AS compared
WHERE here = 0 OR (NOT compared AND (partner IS NULL OR there = 0))
WITH c, h, e,
     CASE
       WHEN here = 0 THEN 'bridge ' + e.id + ' is not mentioned by the evidence of hop ' + toString(h.index)
       WHEN partner IS NULL THEN 'hop ' + toString(h.index) + ' bridges ' + e.id + ' but there is no hop ' + toString(h.index + 1)
                              + ' and no other hop joins on it'
       ELSE 'bridge ' + e.id + ' is not mentioned by the evidence of hop ' + toString(partner.index)
     END AS reason
ORDER BY h.index
WITH c, collect(reason) AS reasons
RETURN c.id AS chain_id, c.status AS status, reasons[0] AS reason
ORDER BY chain_id
