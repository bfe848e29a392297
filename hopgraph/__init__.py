"""The hopgraph command line (the only layer that imports kg, builders, queries and evaluate)."""
