"""Scoring retrievers and RAG systems on a multi-hop dataset (`hopgraph eval`).

retrieval: baseline retrievers (BM25, dense, hybrid, graph) or an external run
file, scored per hop and per question (RAGalyst, CHARGE, MIRAGE metrics).
answers: a reader LLM in MIRAGE's base / oracle / mixed settings.
agent: an agentic decompose-retrieve-answer loop scored against the gold chain
(MC-Search). dataset: the dataset's own quality (MiRAGE's evaluation).
"""
