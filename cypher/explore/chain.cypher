// Explore (Neo4j Browser): one chain as a picture: the Chain, its Hops in
// order, the evidence each hop USES (Chunk, Image, Keypoint), the Documents
// that evidence is PART_OF, image captions, and the Entities hops BRIDGE.
// Set the parameter first:  :param chain_id => '<a chain id>'
// Returns paths (for the graph view); `hopgraph audit --explain <id>` gives the same as JSON.
MATCH p = (c:Chain {id: $chain_id})-[:HAS_HOP]->(h:Hop)
OPTIONAL MATCH u = (h)-[:USES]->(ev)
OPTIONAL MATCH d = (ev)-[:PART_OF]->(:Document)
OPTIONAL MATCH cap = (ev)-[:CAPTIONED_BY]->(:Chunk)
OPTIONAL MATCH b = (h)-[:BRIDGES]->(:Entity)
OPTIONAL MATCH m = (ev)-[:MENTIONS]->(:Entity)<-[:BRIDGES]-(:Hop)<-[:HAS_HOP]-(c)
RETURN p, u, d, cap, b, m
