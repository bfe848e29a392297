// Explore (table): the ids and labels of one chain's neighbourhood: the Chain,
// its Hops, their evidence, the bridge Entities, the source of Keypoint
// evidence and the Documents all that evidence comes from.
// Set the parameter first:  :param chain_id => '<a chain id>'
// Also the read behind `hopgraph export-graph --chain <id>`.
MATCH (c:Chain {id: $chain_id})
RETURN c.id AS id, 'Chain' AS label
UNION
MATCH (:Chain {id: $chain_id})-[:HAS_HOP]->(h:Hop)
RETURN h.id AS id, 'Hop' AS label
UNION
MATCH (:Chain {id: $chain_id})-[:HAS_HOP]->(:Hop)-[:USES]->(ev)
RETURN ev.id AS id, labels(ev)[0] AS label
UNION
MATCH (:Chain {id: $chain_id})-[:HAS_HOP]->(:Hop)-[:BRIDGES]->(e:Entity)
RETURN e.id AS id, 'Entity' AS label
UNION
MATCH (:Chain {id: $chain_id})-[:HAS_HOP]->(:Hop)-[:USES]->(ev)-[:PART_OF]->(d:Document)
RETURN d.id AS id, 'Document' AS label
UNION
MATCH (:Chain {id: $chain_id})-[:HAS_HOP]->(:Hop)-[:USES]->(:Keypoint)<-[:HAS_KEYPOINT]-(src)
RETURN src.id AS id, labels(src)[0] AS label
UNION
MATCH (:Chain {id: $chain_id})-[:HAS_HOP]->(:Hop)-[:USES]->(:Keypoint)<-[:HAS_KEYPOINT]-(src)-[:PART_OF]->(d:Document)
RETURN d.id AS id, 'Document' AS label
