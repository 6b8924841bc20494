// Recall's native vector index over each episode's vector (cosine), kept on an :EpisodeVector
// node beside the episode (not on it: every read of an episode returns its properties, and a
// vector is hundreds of floats). Created with the revisions' index (recall_vector_index.cypher),
// with the same dimensions.
// :params {dimensions: 256}
CREATE VECTOR INDEX recall_episode_vectors IF NOT EXISTS
FOR (v:EpisodeVector) ON v.recall_vector
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}}
