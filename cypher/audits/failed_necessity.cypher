// Audit: failed_necessity
// Hop verification removes each hop's evidence and asks whether the main
// question is still answerable (context utility). A hop that was checked
// (necessity_checked = true) and found unnecessary (necessary = false) must
// have been dropped or its chain rejected; an ACCEPTED chain that still
// carries one ships a hop the question does not need.
// Returns one row per offending chain: {chain_id, status, reason}.
MATCH (c:Chain)-[:HAS_HOP]->(h:Hop)
WHERE c.status = 'accepted' AND h.necessary = false AND h.necessity_checked = true
WITH c, h
ORDER BY h.index
WITH c, collect('hop ' + toString(h.index) + ' was checked and is not necessary') AS reasons
RETURN c.id AS chain_id, c.status AS status, reasons[0] AS reason
ORDER BY chain_id
