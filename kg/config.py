"""hopgraph.toml, read through pydantic-settings.

Precedence (highest first): HOPGRAPH_* environment variables (nested keys
joined by "__", e.g. HOPGRAPH_STORE__BACKEND=neo4j), then hopgraph.toml, then
the defaults below. Secrets (the Neo4j password and the LLM API key) are read
only from the environment or a .env file; they are never written to the TOML
file, to logs or to run manifests.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from kg.errors import ConfigError

CONFIG_FILE = "hopgraph.toml"

CHAIN_TYPES = (
    "text_chain",
    "image_initiated_chain",
    "text_initiated_chain",
    "parallel_visual_textual_fork",
    "multi_image_fork",
)
EXPORT_FORMATS = ("jsonl", "parquet", "hf", "ragas", "deepeval")


class Section(BaseModel):
    # An unknown key is a typo the user wants to hear about.
    model_config = ConfigDict(extra="forbid")


class StoreConfig(Section):
    backend: Literal["falkordb", "neo4j"] = "falkordb"
    data_dir: Path = Path(".hopgraph")
    graph: str = "hopgraph"  # FalkorDB graph name
    neo4j_uri: str = "bolt://localhost:7687"
    neo4j_user: str = "neo4j"
    neo4j_database: str = "neo4j"
    batch_size: int = Field(1000, ge=1)


class IngestConfig(Section):
    glob: str = "*"
    chunking: Literal["semantic", "fixed"] = "semantic"
    min_tokens: int = Field(64, ge=1)
    max_tokens: int = Field(512, ge=8)
    fixed_size: int = Field(800, ge=8)
    fixed_overlap: int = Field(400, ge=0)
    min_image_px: int = Field(150, ge=1)
    parse_workers: int = Field(0, ge=0)  # processes reading PDF pages; 0 = one per CPU for a lone file, else 1
    # Small files are prepared and written in groups (one model call, one spaCy pipe, one
    # write per query for the group): at most group_bytes bytes and group_docs files per
    # group; a larger file goes alone. group_docs = 1: every file alone.
    group_bytes: int = Field(200_000, ge=0)
    group_docs: int = Field(64, ge=1)
    # A document with more text than this (and no images) is prepared and written in parts
    # of about this many characters (kg.pipeline.stream): memory holds a part, not the document.
    part_chars: int = Field(400_000, ge=1_000)
    keypoints: bool = True  # atomic facts per chunk (LLM, or entity sentences offline)
    describe_images: bool = True  # figure descriptions by the vision model (captions without one)
    executor: Literal["local", "ray"] = "local"  # ray: per-document work as Ray tasks (pip install hopgraph[ray])
    ray_address: str | None = None  # None: a local Ray instance; "auto" or "ray://head:10001" for a cluster


class EmbeddingConfig(Section):
    model: str = "sentence-transformers/all-MiniLM-L6-v2"
    # "auto": cuda, then mps, when torch sees one, else cpu
    device: Literal["auto", "cpu", "cuda", "mps"] = "auto"
    # "auto": bf16 on a CPU with AMX (same kNN edges, ~2x faster), else fp32
    precision: Literal["auto", "fp32", "bf16"] = "auto"
    batch_size: int | None = Field(None, ge=1)  # texts per model batch; None: 64 on cpu, 256 on a GPU
    cache_dir: Path | None = None  # default: the store's data_dir; share one across projects to reuse vectors

    def cache_path(self, data_dir: Path) -> Path:
        return (self.cache_dir or data_dir) / "embeddings.sqlite"


class SimilarityConfig(Section):
    k: int = Field(8, ge=1)
    min_score: float = Field(0.5, ge=-1, le=1)


class EntityConfig(Section):
    spacy_model: str = "en_core_web_sm"
    batch_size: int = Field(64, ge=1)  # texts per nlp.pipe batch (measured: bench/ingest.py)
    # spaCy's vocabulary grows with every new word and never shrinks: the pipeline is
    # loaded again after this many characters of text (0: never). See kg.enrich.entities.
    reload_chars: int = Field(500_000, ge=0)


class TopicConfig(Section):
    resolution: float = Field(1.0, gt=0)
    seed: int = 42


DEFAULT_MAX_TOKENS = {
    "keypoints": 512,
    "keypoints_batch": 2048,
    "describe_image": 400,
    "domain_persona": 1600,  # a domain and persona per document title too (up to 30)
    "verbalize_chain": 800,
    "verify_chain": 400,
    "merge_duplicates": 300,
}


class LLMConfig(Section):
    base_url: str | None = None  # falls back to OPENAI_BASE_URL
    generator_model: str = "gpt-4o-mini"
    verifier_model: str = "gpt-4o-mini"
    vision_model: str | None = None  # no vision model: descriptions come from captions
    reader_model: str | None = None  # `hopgraph eval` reader (the model being judged); falls back to generator_model
    judge_model: str | None = None  # `hopgraph eval` judge; falls back to verifier_model, never the reader
    concurrency: int = Field(8, ge=1)
    timeout: float = Field(60.0, gt=0)
    max_retries: int = Field(6, ge=0)
    requests_per_minute: int | None = None
    tokens_per_minute: int | None = None
    temperature: float = 0.0
    prompts_dir: Path | None = None  # a folder of the user's own prompt files
    cache: bool = True
    keypoints_batch: int = Field(8, ge=1)  # passages per keypoint call (1: one call per chunk)
    # Connection failures in a row after which a run stops (the endpoint is gone).
    breaker_threshold: int = Field(5, ge=1)
    # Seconds without one answer after which a failing run stops (a stuck endpoint).
    stall_seconds: float = Field(120.0, gt=0)
    # The model's context window in tokens, for small local models: prompts are
    # sized to fit (the keypoints batch splits) and a prompt that cannot fit is
    # not sent. None: no limit known (hosted models).
    context_window: int | None = Field(None, ge=256)
    # Reply tokens per task. Small models ramble until they hit the limit;
    # these cover the longest good replies measured (README, "LLM endpoints").
    max_tokens: dict[str, int] = Field(default_factory=lambda: dict(DEFAULT_MAX_TOKENS))


class GenerateConfig(Section):
    n: int = Field(50, ge=1)
    types: list[str] = Field(default_factory=lambda: list(CHAIN_TYPES))
    min_hops: int = Field(2, ge=2)
    max_hops: int = Field(4, ge=2)
    seed: int = 7
    near_duplicate_score: float = 0.92
    # Section roles (set at ingest) whose chunks may be chain evidence; the rest stay searchable.
    evidence_roles: list[str] = Field(default_factory=lambda: ["body", "appendix"])
    max_doc_share: float = Field(0.3, gt=0, le=1)  # a bridge in more of one document's chunks is its topic
    max_df_share: float = Field(0.1, gt=0, le=1)  # IDF cap on bridges, corpora of 20+ documents
    # A text chain whose last bridge names a table row ends in one cell of that row with this probability.
    table_share: float = Field(0.3, ge=0, le=1)
    # Variety: one table, or the table-cell question template, supplies at most this share of the n chains.
    variety_share: float = Field(0.2, gt=0, le=1)
    # With an LLM: other candidate answers of the target's kind the last hop must hold (0: not required).
    min_answer_rivals: int = Field(1, ge=0)
    # With an LLM: an earlier hop names its bridge by a number it prints for it (a score, an amount),
    # not by words alone, which a practitioner maps to the name (bench/records/bridge_identification_2026-11-28.md).
    bridge_by_number: bool = True

    @field_validator("types")
    @classmethod
    def _known_chain_types(cls, types: list[str]) -> list[str]:
        if not types:
            raise ValueError(f"name at least one chain type: {', '.join(CHAIN_TYPES)}")
        unknown = [t for t in types if t not in CHAIN_TYPES]
        if unknown:
            raise ValueError(f"unknown chain type {unknown[0]!r}; choose from {', '.join(CHAIN_TYPES)}")
        return types

    @model_validator(mode="after")
    def _hops_in_order(self) -> "GenerateConfig":
        if self.max_hops < self.min_hops:
            raise ValueError(f"min_hops ({self.min_hops}) is above max_hops ({self.max_hops})")
        return self


class VerifyConfig(Section):
    # judge: the verifier says which hops are needed (one call per chain);
    # empirical: MC-Search's HAVE, the verifier answers with all evidence and
    # with each hop removed (hops + 1 more calls per chain).
    necessity: Literal["judge", "empirical"] = "judge"
    answer_match: float = Field(0.6, gt=0, le=1)  # token F1 at which an answer counts as right


class DedupConfig(Section):
    alpha: float = Field(0.6, ge=0, le=1)
    tau: float = Field(0.7, ge=0, le=1)
    resolution: float = Field(1.0, gt=0)
    k: int = Field(10, ge=1)
    seed: int = 42
    llm_merge: bool = False  # rewrite each kept chain from its duplicates with the LLM (MiRAGE Eq. 11)


class ExportConfig(Section):
    formats: list[Literal["jsonl", "parquet", "hf", "ragas", "deepeval"]] = Field(default_factory=lambda: ["jsonl"])
    include_duplicates: bool = False
    include_rejected: bool = False


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="HOPGRAPH_",
        env_nested_delimiter="__",
        extra="forbid",
    )

    store: StoreConfig = StoreConfig()
    ingest: IngestConfig = IngestConfig()
    embeddings: EmbeddingConfig = EmbeddingConfig()
    similarity: SimilarityConfig = SimilarityConfig()
    entities: EntityConfig = EntityConfig()
    topics: TopicConfig = TopicConfig()
    llm: LLMConfig = LLMConfig()
    generate: GenerateConfig = GenerateConfig()
    verify: VerifyConfig = VerifyConfig()
    dedup: DedupConfig = DedupConfig()
    export: ExportConfig = ExportConfig()

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # init_settings carries the parsed TOML (see load_settings).
        return (env_settings, init_settings)

    # Secrets: environment (or .env) only, never part of the TOML model.
    @property
    def neo4j_password(self) -> SecretStr | None:
        value = _secret("NEO4J_PASSWORD")
        return SecretStr(value) if value else None

    @property
    def llm_api_key(self) -> SecretStr | None:
        value = _secret("OPENAI_API_KEY")
        return SecretStr(value) if value else None

    @property
    def llm_base_url(self) -> str | None:
        return self.llm.base_url or _secret("OPENAI_BASE_URL")

    @property
    def llm_configured(self) -> bool:
        return bool(self.llm_base_url or self.llm_api_key)

    def secrets_summary(self) -> dict[str, str]:
        def mask(v: object) -> str:
            return "****" if v else "(not set)"

        return {
            "NEO4J_PASSWORD": mask(self.neo4j_password),
            "OPENAI_API_KEY": mask(self.llm_api_key),
            "OPENAI_BASE_URL": self.llm_base_url or "(not set)",
        }


def _secret(name: str) -> str | None:
    if os.environ.get(name):
        return os.environ[name]
    return _dotenv().get(name)


def _dotenv() -> dict[str, str]:
    from dotenv import dotenv_values

    path = Path(".env")
    if not path.is_file():
        return {}
    return {k: v for k, v in dotenv_values(path).items() if v}


def load_settings(path: Path | None = None) -> Settings:
    """Read hopgraph.toml (if present) and the environment.

    Raises ConfigError with one line naming the file and the key on any
    malformed file, unknown key or bad value.
    """
    named = path is not None or "HOPGRAPH_CONFIG" in os.environ  # a file the user named must exist
    path = path or Path(os.environ.get("HOPGRAPH_CONFIG", CONFIG_FILE))
    data: dict = {}
    if named and not path.is_file():
        raise ConfigError(f"{path}: no such config file" + (" (a folder)" if path.is_dir() else ""))
    if path.is_file():
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{path}: not valid TOML ({exc})") from None
        resolve_paths(data, path.resolve().parent)
    try:
        return Settings(**data)
    except ValidationError as exc:
        loc, msg = _first_error(exc)
        env_name = "HOPGRAPH_" + "__".join(str(p).upper() for p in loc)
        if env_name in os.environ:
            raise ConfigError(f"environment {env_name}: {msg}") from None
        raise ConfigError(f"{path}: {'.'.join(str(p) for p in loc)}: {msg}") from None


def override(settings: Settings, section: str, **values: object) -> None:
    """Set values given on the command line (None: not given) on one section of
    `settings`, checked by the same rules as the config file; ConfigError names the key."""
    current = getattr(settings, section)
    data = current.model_dump() | {key: value for key, value in values.items() if value is not None}
    try:
        setattr(settings, section, type(current).model_validate(data))
    except ValidationError as exc:
        loc, msg = _first_error(exc)
        raise ConfigError(f"{'.'.join(str(p) for p in (section, *loc))}: {msg}") from None


def _first_error(exc: ValidationError) -> tuple[tuple, str]:
    """(where, what) of a validation error's first complaint, in the user's words."""
    err = exc.errors()[0]
    if err["type"] == "extra_forbidden":
        return err["loc"], "unknown key"
    if err["type"] == "value_error":  # our own rules: their message without pydantic's prefix
        return err["loc"], str(err["ctx"]["error"])
    return err["loc"], err["msg"]


# Keys holding paths: relative values in a config file mean "beside the file".
PATH_KEYS = (("store", "data_dir"), ("embeddings", "cache_dir"), ("llm", "prompts_dir"))


def resolve_paths(data: dict, folder: Path) -> None:
    """Relative paths of a config file resolved against the file's folder, so
    `cd elsewhere && hopgraph -c project/hopgraph.toml stats` opens the
    project's graph; the data dir does so even when the file leaves it unset."""
    store = data.get("store")
    if isinstance(store, dict) or store is None:
        data.setdefault("store", {}).setdefault("data_dir", str(StoreConfig().data_dir))
    for section, key in PATH_KEYS:
        values = data.get(section)
        if isinstance(values, dict) and isinstance(values.get(key), str):
            value = Path(values[key]).expanduser()
            values[key] = str(value if value.is_absolute() else folder / value)
