"""The Python side of Cypher above the store: audits, the walkers' corpus view and the
graph export. The named-query loader itself lives in kg.store.named_queries, below the
store that runs the queries (the store must not import this package)."""
