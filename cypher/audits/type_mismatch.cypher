// Audit: type_mismatch
// The graph_type of a chain promises a shape (MC-Search chain types); the
// evidence must deliver it, or the dataset's per-type statistics and any
// modality-specific evaluation are wrong:
//   image_initiated_chain         the hop with index 0 USES an Image
//   text_initiated_chain          the last hop USES an Image
//   multi_image_fork              at least 2 distinct Images are used
//   parallel_visual_textual_fork  both an Image and a text (Chunk/Keypoint) hop
//   text_chain                    no Image at all
//   any other graph_type          unknown type
// Returns rows {chain_id, status, reason}.
MATCH (c:Chain)
WHERE c.graph_type = 'image_initiated_chain'
OPTIONAL MATCH (c)-[:HAS_HOP]->(h:Hop)-[:USES]->(i:Image)
WHERE h.index = 0
WITH c, count(i) AS images
WHERE images = 0
RETURN c.id AS chain_id, c.status AS status, 'image_initiated_chain whose first hop uses no Image' AS reason
UNION
MATCH (c:Chain)-[:HAS_HOP]->(h:Hop)
WHERE c.graph_type = 'text_initiated_chain'
WITH c, max(h.index) AS last_index
OPTIONAL MATCH (c)-[:HAS_HOP]->(h:Hop)-[:USES]->(i:Image)
WHERE h.index = last_index
WITH c, count(i) AS images
WHERE images = 0
RETURN c.id AS chain_id, c.status AS status, 'text_initiated_chain whose last hop uses no Image' AS reason
UNION
MATCH (c:Chain)
WHERE c.graph_type = 'multi_image_fork'
OPTIONAL MATCH (c)-[:HAS_HOP]->(:Hop)-[:USES]->(i:Image)
WITH c, count(DISTINCT i) AS images
WHERE images < 2
RETURN c.id AS chain_id, c.status AS status,
       'multi_image_fork with ' + toString(images) + ' distinct Image(s)' AS reason
UNION
MATCH (c:Chain)
WHERE c.graph_type = 'parallel_visual_textual_fork'
OPTIONAL MATCH (c)-[:HAS_HOP]->(:Hop)-[:USES]->(ev)
WITH c, collect(DISTINCT labels(ev)[0]) AS kinds
WITH c, kinds
WHERE NOT 'Image' IN kinds OR NOT ('Chunk' IN kinds OR 'Keypoint' IN kinds)
RETURN c.id AS chain_id, c.status AS status,
       'parallel_visual_textual_fork without both an image and a text branch' AS reason
UNION
MATCH (c:Chain)-[:HAS_HOP]->(:Hop)-[:USES]->(i:Image)
WHERE c.graph_type = 'text_chain'
WITH c, count(DISTINCT i) AS images
RETURN c.id AS chain_id, c.status AS status,
       'text_chain using ' + toString(images) + ' Image(s)' AS reason
UNION
MATCH (c:Chain)
WHERE NOT coalesce(c.graph_type, '') IN ['text_chain', 'image_initiated_chain', 'text_initiated_chain',
                                         'parallel_visual_textual_fork', 'multi_image_fork']
RETURN c.id AS chain_id, c.status AS status,
       'unknown graph_type ' + coalesce(c.graph_type, '(none)') AS reason
