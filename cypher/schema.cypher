// The store's own queries: counts for `hopgraph stats` and clean-up.
// Index, constraint and vector-index DDL differ between FalkorDB and Neo4j,
// so they live in the backend classes (kg/store/falkor.py, kg/store/neo4j_store.py).

// name: count_nodes_by_label
MATCH (n)
RETURN labels(n)[0] AS label, count(*) AS n
ORDER BY label

// name: count_relationships_by_type
MATCH ()-[r]->()
RETURN type(r) AS type, count(*) AS n
ORDER BY type

// name: delete_all
MATCH (n)
DETACH DELETE n
