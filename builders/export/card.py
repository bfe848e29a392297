"""The dataset card (README.md of the export folder), with a Hugging Face YAML header."""

from __future__ import annotations

from typing import Any

from builders.export.names import (
    HF_DIR, HOPS_PLOT, IMAGES_DIR, JSONL_NAME, MODALITY_PLOT, PARQUET_NAME, PLOTS_DIR, SCHEMA_NAME,
    STATS_NAME,
)
from kg.markdown_table import markdown_table


def dataset_card(summary: dict[str, Any], settings: Any, formats: list[str], skipped: dict[str, int]) -> str:
    """The dataset card (README.md), with a Hugging Face YAML header."""
    lines: list[str] = []
    for section in (_overview(summary, skipped), _types_hops_modality(summary), _verification(summary),
                    _quality(summary), _files(formats), _record_and_provenance()):
        lines.extend(section)
    return "\n".join(lines)


def _overview(s: dict[str, Any], skipped: dict[str, int]) -> list[str]:
    """YAML header, description and headline counts."""
    return [
        "---",
        "pretty_name: hopgraph multi-hop QA",
        "task_categories:",
        "- question-answering",
        "tags:",
        "- multi-hop",
        "- multimodal",
        "- rag-evaluation",
        "- hopgraph",
        "configs:",
        "- config_name: default",
        f"  data_files: {JSONL_NAME}",
        "---",
        "",
        "# hopgraph multi-hop QA dataset",
        "",
        "Multi-hop question-answer chains generated from a document collection by "
        "hopgraph (documents -> knowledge graph -> verified chains). "
        "Each record is one question whose answer needs every hop of its `subqa_chain`: each hop is "
        "a sub-question answered by one piece of evidence (a text chunk, an image, or an atomic fact "
        "extracted from either), and consecutive hops are joined by a bridge entity. It is meant for "
        "evaluating retrieval-augmented generation systems on multi-hop, multimodal questions.",
        "",
        f"- records: **{s['records']}** ({s['hops_total']} hops) drawing on {s['documents']} documents "
        f"and {s['images']} image{'' if s['images'] == 1 else 's'}",
        f"- statuses exported: {', '.join(f'{k} {v}' for k, v in s['by_status'].items()) or 'none'}; "
        f"not exported: {skipped.get('rejected', 0)} rejected, {skipped.get('duplicate', 0)} duplicate",
        f"- generator: {', '.join(f'{k} ({v})' for k, v in s['generators'].items()) or 'n/a'}",
        f"- prompt versions: {', '.join(f'`{t}` {chr(47).join(v)}' for t, v in s['prompt_versions'].items()) or 'n/a'}",
        "",
    ]


def _types_hops_modality(s: dict[str, Any]) -> list[str]:
    """Chain types, hop histogram and modality, with the plots."""
    return [
        "## Chain types",
        "",
        *markdown_table(("graph_type", "records"), [(f"`{t}`", n) for t, n in s["by_graph_type"].items()], numeric=1),
        "",
        "Types follow MC-Search: `text_chain` (text hops joined by bridge entities), "
        "`image_initiated_chain` (an image hop, then text hops), `text_initiated_chain` (text hops ending "
        "in an image hop), `parallel_visual_textual_fork` (an image branch and a text branch joined in the "
        "final question), `multi_image_fork` (several images combined, plus a text hop).",
        "",
        "## Hops",
        "",
        *markdown_table(("hops", "records"), s["hops_histogram"].items(), numeric=2),
        "",
        f"![Chains per graph type by number of hops]({PLOTS_DIR}/{HOPS_PLOT})",
        "",
        "## Modality",
        "",
        *markdown_table(("modality", "hops", "share"),
                        [(m, s["modality_counts"][m], f"{share:.1%}") for m, share in s["modality_share"].items()],
                        numeric=2),
        "",
        f"![Hop modality share by graph type]({PLOTS_DIR}/{MODALITY_PLOT})",
        "",
        f"Table hops: **{s.get('table_hops', 0)}**. A table hop ends a text chain: its answer is one "
        "cell of a table, named by its row and column headers (`table_cell` in the hop: `row_label`, "
        "`column_label`, `value`), so it can be checked by finding that row and column in the table.",
        f"Figure hops: **{s.get('figure_hops', 0)}**: a value a figure prints at one of its labels "
        "(`figure_value` in the hop: `label`, `value`, `figure`), answered or used to identify a bridge.",
        "",
    ]


def _verification(s: dict[str, Any]) -> list[str]:
    """The verification checks and their pass rates."""
    return [
        "## Verification",
        "",
        "Every chain was checked before export; the results are in each record's `verification`:",
        "`faithful` (the answer is supported by the evidence), `standalone` (the question needs no "
        "outside context such as \"the figure above\"), `requires_content` (not answerable from general "
        "knowledge), `navigation` (each hop's bridge or answer appears in the next sub-question), "
        "`no_shortcut` (no single evidence item answers the main question), and `hop_necessity` (per hop: "
        "with that hop's evidence removed the question is no longer answerable).",
        "",
        *markdown_table(("check", "pass", "fail", "unchecked"),
                        [(flag, *(f"{c.get(k, 0):.1%}" for k in ("pass", "fail", "unchecked")))
                         for flag, c in s["verification_share"].items()], numeric=3),
        "",
    ]


_QUALITY_ROWS = (  # key, what it measures, target
    ("non_content_evidence_share", "hops whose evidence is page furniture, contents, references or boilerplate", "0"),
    ("answer_in_evidence_share", "text-hop answers found verbatim in their evidence", "1.0"),
    ("question_word_agreement", "questions whose question word fits the answer's type", "1.0"),
    ("median_bridge_df", "median number of documents mentioning a bridge entity", ""),
    ("average_hops", "average hops per accepted chain", ">= 3.0"),
    ("share_3plus_hops", "accepted chains with 3 or more hops", ">= 0.3"),
)


def _quality(s: dict[str, Any]) -> list[str]:
    """Issue 12's quality figures (builders/stats.py quality_figures), when the graph was readable."""
    quality = s.get("quality") or {}
    if not quality:
        return []
    return [
        "## Quality",
        "",
        *markdown_table(("figure", "value", "target"),
                        [(f"{label} (`{key}`)", quality[key], target) for key, label, target in _QUALITY_ROWS
                         if key in quality], numeric=2),
        "",
    ]


def _files(formats: list[str]) -> list[str]:
    """The files of the folder and how to load them."""
    return [
        "## Files",
        "",
        f"- `{JSONL_NAME}`: one JSON record per line, in generation order",
        *([f"- `{PARQUET_NAME}`: the same records; scalar fields are native columns, list and object fields "
           "are JSON strings (`json.loads` gives back the JSONL value)"] if "parquet" in formats else []),
        *([f"- `{HF_DIR}/`: a `datasets.Dataset` saved with `save_to_disk` (nested fields native)"]
          if "hf" in formats else []),
        *(["- `ragas.jsonl`: RAGAS evaluation samples (user_input, reference, reference_contexts), one per record "
           "in the same order: `ragas.EvaluationDataset.from_jsonl(\"ragas.jsonl\")`"] if "ragas" in formats else []),
        *(["- `deepeval_goldens.json`: DeepEval goldens (input, expected_output, context): "
           "`EvaluationDataset().add_goldens_from_json_file(\"deepeval_goldens.json\", "
           "input_key_name=\"input\", expected_output_key_name=\"expected_output\", context_key_name=\"context\")`"]
          if "deepeval" in formats else []),
        f"- `{SCHEMA_NAME}`: JSON Schema of a record",
        f"- `{STATS_NAME}`: the counts on this page, machine-readable",
        f"- `{IMAGES_DIR}/`: every image a hop uses; `evidence.image_path` is relative to this folder",
        "",
        "## Loading",
        "",
        "```python",
        "from datasets import load_dataset",
        f'ds = load_dataset("json", data_files="{JSONL_NAME}", split="train")',
        'print(ds[0]["question"], [h["subquestion"] for h in ds[0]["subqa_chain"]])',
        "```",
        "",
        *(["```python", "from datasets import load_from_disk", f'ds = load_from_disk("{HF_DIR}")', "```", ""]
          if "hf" in formats else []),
        "Plain Python: `[json.loads(line) for line in open(\"dataset.jsonl\")]`.",
        "",
    ]


def _record_and_provenance() -> list[str]:
    """The record format and where the data came from."""
    return [
        "## Record format",
        "",
        "`id`, `graph_type`, `question`, `answer`, `subqa_chain` (per hop: `index`, `subquestion`, "
        "`answer`, `modality`, `supporting_fact_id`, `bridge_entity`, `necessary`, `evidence` with "
        "`doc_id`, `path`, `page`, `chunk_id`/`image_id`/`keypoint_id`, `text`/`image_path`, and "
        "`table_cell` for a hop answered by one table cell), `hops`, "
        "`bridge_entities`, `structure` (edges `[from_hop, to_hop]` between hop indices), `domain`, "
        "`persona`, `verification`, `generator` (`llm`, `prompt_versions`), `topics`, `doc_ids`, "
        "`duplicates_merged`, `status`. Field names follow MC-Search where it has one. "
        f"See `{SCHEMA_NAME}` for types.",
        "",
        "## Provenance",
        "",
        "Documents were parsed into chunks and images, linked into a knowledge graph (entity mentions, "
        "in-document references, embedding similarity, topics), and chains were sampled as graph walks "
        "whose consecutive hops share a bridge entity, then verbalized into questions and verified "
        "(the checks above). Near-duplicate chains were grouped (answer similarity and evidence "
        "overlap, Leiden communities); the best chain of a group is kept and lists the others in "
        "`duplicates_merged`. Every hop's `evidence` names the source document (`doc_id` is a content "
        "hash of the file, `path` where it was read from) and page, so each answer can be traced back to "
        "its source. `generator.llm` is the model that wrote the questions (`offline` means no LLM was "
        "used) and `generator.prompt_versions` the prompt versions used. Questions inherit the licence and "
        "any errors of the source documents.",
        "",
    ]
