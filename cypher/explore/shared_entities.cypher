// Explore (Neo4j Browser, table): entities mentioned in more than one document,
// the natural bridges for cross-document chains, most widespread first.
MATCH (n)-[:MENTIONS]->(e:Entity)
MATCH (n)-[:PART_OF]->(d:Document)
WITH e, count(DISTINCT d) AS documents, collect(DISTINCT coalesce(d.title, d.path, d.id)) AS titles, count(DISTINCT n) AS mentions
WHERE documents > 1
RETURN e.id AS entity, e.name AS name, e.label AS label, documents, mentions, titles[0..5] AS some_documents
ORDER BY documents DESC, mentions DESC, entity
LIMIT 100
