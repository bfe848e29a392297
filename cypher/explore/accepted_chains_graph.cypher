// Explore (Neo4j Browser, graph): up to 10 accepted chains of one type with
// their hops and evidence.
// Set the parameter first:  :param graph_type => 'text_chain'
MATCH (c:Chain)
WHERE c.status = 'accepted' AND c.graph_type = $graph_type
WITH c
ORDER BY c.seq, c.id
LIMIT 10
MATCH p = (c)-[:HAS_HOP]->(:Hop)-[:USES]->()
RETURN p
