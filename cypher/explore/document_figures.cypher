// Explore (Neo4j Browser): one document with its figures: every Image that is
// PART_OF it, the caption Chunk each Image is CAPTIONED_BY, and the Chunks
// that REFERENCE the figure ("see Figure 3").
// Set the parameter first:  :param doc_id => '<a document id>'
MATCH p = (i:Image)-[:PART_OF]->(d:Document {id: $doc_id})
OPTIONAL MATCH cap = (i)-[:CAPTIONED_BY]->(:Chunk)
OPTIONAL MATCH ref = (:Chunk)-[:REFERENCES]->(i)
RETURN p, cap, ref
