// Explore (Neo4j Browser, graph): topics with a sample of their chunks and the
// documents those chunks belong to (up to 10 chunks per topic).
MATCH (t:Topic)
OPTIONAL MATCH (c:Chunk)-[:IN_TOPIC]->(t)
WITH t, collect(c) AS chunks
UNWIND chunks[0..10] AS c
MATCH p = (t)<-[:IN_TOPIC]-(c)-[:PART_OF]->(:Document)
RETURN p
