// Explore (Neo4j Browser, table): the topic map: each Leiden Topic with its
// size and keywords, the documents its chunks come from, and how strongly it
// is tied to other topics by cross-topic SIMILAR_TO edges between chunks.
MATCH (t:Topic)
OPTIONAL MATCH (c:Chunk)-[:IN_TOPIC]->(t)
OPTIONAL MATCH (c)-[:PART_OF]->(d:Document)
WITH t, count(DISTINCT c) AS chunks, collect(DISTINCT coalesce(d.title, d.path, d.id)) AS documents
OPTIONAL MATCH (a:Chunk)-[:IN_TOPIC]->(t)
OPTIONAL MATCH (a)-[:SIMILAR_TO]-(:Chunk)-[:IN_TOPIC]->(o:Topic)
WHERE o <> t
WITH t, chunks, documents, o, count(*) AS links
ORDER BY links DESC
WITH t, chunks, documents, collect(CASE WHEN o IS NULL THEN null ELSE {topic: o.id, links: links} END) AS neighbours
RETURN t.id AS topic, t.level AS level, t.size AS size, t.keywords AS keywords, chunks,
       documents[0..5] AS documents, neighbours[0..5] AS related_topics
ORDER BY size DESC, topic
