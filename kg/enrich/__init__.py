"""Per-document enrichment stages: chunking, embeddings, similarity, entities,
topics, keypoints, image descriptions, domain."""
