// Audit: shortcut
// A multi-hop question must not be answerable from one piece of evidence.
// For chains with >= 2 hops, a non-empty bridge_entities list and a non-empty
// answer_entities list, it flags an evidence node of a hop BEFORE the last one
// that already mentions every bridge entity and every answer entity (an Image
// also counts its caption chunk's mentions). Such a chain collapses to a
// single lookup: the later hops add nothing a reader needs.
// The last hop's evidence is exempt: it mentions the final bridge and the
// answer by construction. With no answer entities the check is vacuous and
// the chain is skipped (hop necessity then rests on failed_necessity).
// Returns one row per offending chain: {chain_id, status, reason}.
MATCH (c:Chain)
WHERE coalesce(c.hops, 0) >= 2
  AND size(coalesce(c.bridge_entities, [])) > 0
  AND size(coalesce(c.answer_entities, [])) > 0
MATCH (c)-[:HAS_HOP]->(last:Hop)
WITH c, max(last.index) AS last_index
MATCH (c)-[:HAS_HOP]->(h:Hop)-[:USES]->(ev)
WHERE h.index < last_index
WITH DISTINCT c, h, ev
UNWIND c.bridge_entities + c.answer_entities AS needed_id
OPTIONAL MATCH (x:Entity {id: needed_id})
WHERE (ev)-[:MENTIONS]->(x) OR (ev)-[:CAPTIONED_BY]->(:Chunk)-[:MENTIONS]->(x)
WITH c, h, ev, count(DISTINCT needed_id) AS needed, count(DISTINCT x) AS mentioned
WHERE mentioned = needed
WITH c, 'evidence ' + ev.id + ' of hop ' + toString(h.index) + ' alone mentions every bridge and answer entity' AS reason
ORDER BY reason
WITH c, collect(reason) AS reasons
RETURN c.id AS chain_id, c.status AS status, reasons[0] AS reason
ORDER BY chain_id
