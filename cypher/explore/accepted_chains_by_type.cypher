// Explore (Neo4j Browser, table): accepted chains per graph_type, with hop
// counts, mean score and an example question, plus rejected and duplicate
// totals so the acceptance rate of each type is visible.
MATCH (c:Chain)
WITH c.graph_type AS graph_type,
     count(CASE WHEN c.status = 'accepted' THEN 1 END) AS accepted,
     count(CASE WHEN c.status = 'rejected' THEN 1 END) AS rejected,
     count(CASE WHEN c.status = 'duplicate' THEN 1 END) AS duplicates,
     avg(CASE WHEN c.status = 'accepted' THEN c.hops END) AS mean_hops,
     avg(CASE WHEN c.status = 'accepted' THEN c.score END) AS mean_score,
     collect(CASE WHEN c.status = 'accepted' THEN c.question END) AS questions
RETURN graph_type, accepted, rejected, duplicates, mean_hops, mean_score, questions[0] AS example_question
ORDER BY accepted DESC, graph_type
