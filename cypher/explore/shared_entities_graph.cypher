// Explore (Neo4j Browser, graph): the documents joined by entities they share.
// Each path is Document <- Chunk/Image -> Entity; only entities mentioned in
// at least two documents are drawn (the 25 most widespread).
MATCH (n)-[:MENTIONS]->(e:Entity)
MATCH (n)-[:PART_OF]->(d:Document)
WITH e, count(DISTINCT d) AS documents
WHERE documents > 1
WITH e, documents
ORDER BY documents DESC, e.id
LIMIT 25
MATCH p = (d:Document)<-[:PART_OF]-(n)-[:MENTIONS]->(e)
RETURN p
