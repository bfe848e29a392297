// Copying a graph between stores (`hopgraph sync --to neo4j`, graph export).
//
// Labels and relationship types cannot be parameters, so these queries are
// templates over placeholder names: SyncLabel / SyncSource / SyncTarget stand
// for a node label, SYNC_TYPE for a relationship type. kg/store/sync.py fills
// them in ONLY with names from the fixed schema lists (kg.store.base
// INDEXED_LABELS and kg.store.sync.KNOWN_TYPES) and refuses anything else;
// values always go in as parameters. As written, each template is valid
// Cypher on both stores (it matches nothing), so the linter and the FalkorDB
// smoke test check the exact text that runs.
//
// Paging is by id (keyset: `id > $after ORDER BY id LIMIT $limit`), which uses
// the id index on both stores and stays linear where SKIP would rescan.
// The `embedding` vector property is never read: properties come back as
// [key, value] pairs with it filtered out.

// name: sync_dump_nodes
MATCH (n:SyncLabel)
WHERE n.id > $after
WITH n
ORDER BY n.id
LIMIT $limit
RETURN n.id AS id, [k IN keys(n) WHERE k <> 'embedding' | [k, n[k]]] AS props
ORDER BY id

// name: sync_nodes_by_ids
UNWIND $ids AS node_id
MATCH (n:SyncLabel {id: node_id})
RETURN n.id AS id, [k IN keys(n) WHERE k <> 'embedding' | [k, n[k]]] AS props

// name: sync_dump_edges
MATCH (a:SyncLabel)
WHERE a.id > $after
WITH a
ORDER BY a.id
LIMIT $limit
OPTIONAL MATCH (a)-[r]->(b)
RETURN a.id AS s, type(r) AS type, labels(b)[0] AS target_label, b.id AS d,
       [k IN keys(r) | [k, r[k]]] AS props
ORDER BY s

// name: sync_edges_by_ids
UNWIND $ids AS node_id
MATCH (a:SyncLabel {id: node_id})-[r]->(b)
RETURN a.id AS s, type(r) AS type, labels(b)[0] AS target_label, b.id AS d,
       [k IN keys(r) | [k, r[k]]] AS props

// name: sync_upsert_nodes
UNWIND $rows AS r
MERGE (n:SyncLabel {id: r.id})
SET n += r.props

// name: sync_upsert_edges
UNWIND $rows AS r
MATCH (a:SyncSource {id: r.s})
MATCH (b:SyncTarget {id: r.d})
MERGE (a)-[e:SYNC_TYPE]->(b)
SET e += r.props
