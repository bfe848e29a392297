"""The commented hopgraph.toml that `hopgraph init` writes: every key with its default.

Kept beside kg/config.py (the settings models); tests/kg/test_config.py checks that it
loads into the same Settings as the models' defaults.
"""

DEFAULT_TOML = """\
# hopgraph configuration. Every key is optional; the values shown are the defaults.
# Any key can be overridden by an environment variable: HOPGRAPH_<SECTION>__<KEY>,
# e.g. HOPGRAPH_STORE__BACKEND=neo4j. Secrets never go in this file: set
# NEO4J_PASSWORD, OPENAI_API_KEY (and OPENAI_BASE_URL) in the environment or .env.

[store]
backend = "falkordb"          # "falkordb" (embedded, started by hopgraph) or "neo4j"
data_dir = ".hopgraph"        # server socket, data, caches, assets and run manifests
graph = "hopgraph"            # FalkorDB graph name
neo4j_uri = "bolt://localhost:7687"
neo4j_user = "neo4j"
neo4j_database = "neo4j"
batch_size = 1000             # rows per UNWIND write batch

[ingest]
glob = "*"                    # which files to take from a folder
chunking = "semantic"         # "semantic" (similarity drops, MiRAGE) or "fixed" (token windows)
min_tokens = 64
max_tokens = 512
fixed_size = 800
fixed_overlap = 400
min_image_px = 150            # smaller uncaptioned images are decorative
parse_workers = 0             # processes reading a PDF's pages (0: one per CPU for a lone file; with several
                              # files, pipelined one by one beside the embedding; 1: none)
group_bytes = 200000          # small files are embedded, tagged and written in groups of at most
group_docs = 64               #   this many bytes and files (a larger file goes alone; 1: all alone)
part_chars = 400000           # a text longer than this goes in parts of about this many characters
keypoints = true              # atomic facts per chunk (LLM; offline: sentences that carry an entity)
describe_images = true        # figure descriptions by the vision model (without one: captions)
executor = "local"            # "local" or "ray" (per-document work on a Ray cluster; pip install hopgraph[ray])
# ray_address = "auto"        # default: a local Ray instance; "auto" joins the running cluster

[embeddings]
model = "sentence-transformers/all-MiniLM-L6-v2"   # bundled offline; any sentence-transformers name or path
device = "auto"               # "auto" (cuda, then mps, else cpu), "cpu", "cuda" or "mps"
precision = "auto"            # "auto" (bf16 on CPUs with AMX, else fp32), "fp32" or "bf16"
# batch_size = 64             # default: 64 on cpu, 256 on a GPU
# cache_dir = "~/.cache/hopgraph"  # default: data_dir; vectors are keyed by (model, text hash)

[similarity]
k = 8                         # neighbours per chunk for SIMILAR_TO
min_score = 0.5               # cosine floor for SIMILAR_TO

[entities]
spacy_model = "en_core_web_sm"
batch_size = 64               # texts per spaCy nlp.pipe batch
reload_chars = 500000         # spaCy reloaded after this much text (its vocabulary never shrinks); 0: never

[topics]
resolution = 1.0              # Leiden resolution: higher gives more, smaller topics
seed = 42

[llm]
# base_url = "http://localhost:11434/v1"   # or OPENAI_BASE_URL; no endpoint = offline mode
generator_model = "gpt-4o-mini"
verifier_model = "gpt-4o-mini"
# vision_model = "gpt-4o-mini"             # unset: image descriptions come from captions
# reader_model = "gpt-4o-mini"             # hopgraph eval reader (judged); unset: generator_model
# judge_model = "gpt-4o"                   # hopgraph eval judge; unset: verifier_model
concurrency = 8
timeout = 60.0
max_retries = 6
# requests_per_minute = 500
# tokens_per_minute = 200000
temperature = 0.0
# prompts_dir = "my_prompts"               # your own prompt files, same names as kg/prompts/
cache = true
keypoints_batch = 8                        # passages per keypoint call (1: one call per chunk)
breaker_threshold = 5                      # requests in a row without an answer (refused, timed out) that stop a run
stall_seconds = 120.0                      # a run with no answer for this long stops at its next failure
# context_window = 8192                    # small local models: prompts are sized to fit
# [llm.max_tokens]                         # reply tokens per task (defaults in kg/config.py)
# keypoints_batch = 2048

[generate]
n = 50
types = ["text_chain", "image_initiated_chain", "text_initiated_chain", "parallel_visual_textual_fork", "multi_image_fork"]
min_hops = 2
max_hops = 4
seed = 7
near_duplicate_score = 0.92   # two hops this similar are one piece of evidence
evidence_roles = ["body", "appendix"]  # chunk section roles that may be chain evidence
max_doc_share = 0.3           # a bridge in more of one document's chunks is that document's topic
max_df_share = 0.1            # a bridge in more of the documents (20+ documents) is too common
table_share = 0.3             # chance a text chain ends in one table cell when its last bridge names a row
variety_share = 0.2           # one table, or the table-cell question template, gives at most this share of the chains
min_answer_rivals = 1         # with an LLM: other answers of the target's kind the last hop must hold (0: none)
bridge_by_number = true       # with an LLM: an earlier hop names its bridge by a number it prints (false: words too)

[verify]
necessity = "judge"           # or "empirical": answer with each hop removed (MC-Search HAVE)
answer_match = 0.6            # token F1 at which an empirical answer counts as right

[dedup]
alpha = 0.6                   # weight of answer similarity vs evidence overlap (hopgraph's default)
tau = 0.7                     # pair score at or above which two chains are duplicates (hopgraph's default)
resolution = 1.0
k = 10
seed = 42
llm_merge = false             # with an LLM: merge each duplicate group into its kept chain (MiRAGE Eq. 11)

[export]
formats = ["jsonl"]           # any of "jsonl", "parquet", "hf", "ragas", "deepeval"
include_duplicates = false
include_rejected = false
"""
