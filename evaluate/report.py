"""report.md: the tables and plots of an evaluation folder, rebuilt from metrics.json.

Plots (matplotlib, Agg backend, PNG beside the report): hit rate and recall
against k per retriever, and a metric by chain type. Every figure printed is
a value from metrics.json; a section that did not run is absent.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from kg.atomic_write import atomic_write_text
from kg.markdown_table import markdown_table

PAPERS = ("Papers' figures, for comparison: MiRAGE full pipeline faithfulness 0.97, relevance 0.95, "
          "hops 1.92-2.84, topic JSD 0.08; MC-Search 3.7 hops per chain; RAGalyst answerability 0.97-1.00.")


def table(rows: list[dict[str, Any]], columns: list[str]) -> str:
    """A markdown table; floats to 3 decimals, missing cells as '-'."""
    def cell(value: Any) -> str:
        if value is None:
            return "-"
        return f"{value:.3f}" if isinstance(value, float) else str(value)

    return "\n".join(markdown_table(columns, [[cell(r.get(c)) for c in columns] for r in rows]))


def _ks(section: dict[str, Any]) -> list[int]:
    return list(section.get("k", []))


def _retrieval_tables(section: dict[str, Any]) -> list[str]:
    ks = _ks(section)
    parts = []
    for level in ("question", "hop"):
        columns = ["retriever", "n"] + [f"{m}@{k}" for m in ("hit", "recall", "all_hops", "mrr", "f1", "ndcg")
                                         for k in ks if not (m == "all_hops" and level == "hop")]
        rows = [{"retriever": name, **values[level]} for name, values in section["retrievers"].items()
                if level in values]
        if rows:
            title = "final question, all hops' evidence as gold" if level == "question" else "each hop's sub-question"
            parts.append(f"### Per {level} ({title})\n\n" + table(rows, columns))
    k = 5 if 5 in ks else ks[-1]
    for group in ("graph_type", "hops", "modality"):
        rows = []
        for name, values in section["retrievers"].items():
            for value, means in values.get(f"by_{group}", {}).get("question", {}).items():
                rows.append({"retriever": name, group: value, "n": means.get("n"), f"hit@{k}": means.get(f"hit@{k}"),
                             f"recall@{k}": means.get(f"recall@{k}"), f"all_hops@{k}": means.get(f"all_hops@{k}")})
        if rows:
            parts.append(f"### Per question, by {group}\n\n" + table(
                rows, ["retriever", group, "n", f"hit@{k}", f"recall@{k}", f"all_hops@{k}"]))
    return parts


def _plot_retrieval(section: dict[str, Any], out_dir: Path) -> list[str]:
    os.environ.setdefault("MPLBACKEND", "Agg")
    import matplotlib.pyplot as plt

    ks, images = _ks(section), []
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for axis, metric in zip(axes, ("hit", "recall")):
        for name, values in section["retrievers"].items():
            level = values.get("question", {})
            axis.plot(ks, [level.get(f"{metric}@{k}") for k in ks], marker="o", label=name)
        axis.set(xlabel="k", ylabel=f"{metric}@k (per question)", ylim=(0, 1.05), xticks=ks)
        axis.grid(alpha=0.3)
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out_dir / "recall_at_k.png", dpi=110)
    images.append("recall_at_k.png")
    plt.close(fig)
    k = 5 if 5 in ks else ks[-1]
    types = sorted({t for v in section["retrievers"].values() for t in v.get("by_graph_type", {}).get("question", {})})
    if types:
        fig, axis = plt.subplots(figsize=(10, 4))
        width = 0.8 / max(1, len(section["retrievers"]))
        for i, (name, values) in enumerate(section["retrievers"].items()):
            by_type = values.get("by_graph_type", {}).get("question", {})
            axis.bar([j + i * width for j in range(len(types))],
                     [by_type.get(t, {}).get(f"recall@{k}", 0) for t in types], width, label=name)
        axis.set_xticks([j + 0.4 - width / 2 for j in range(len(types))], types, rotation=15, fontsize=8)
        axis.set(ylabel=f"recall@{k} (per question)", ylim=(0, 1.05))
        axis.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(out_dir / "by_graph_type.png", dpi=110)
        images.append("by_graph_type.png")
        plt.close(fig)
    return images


def _flat_section(title: str, section: dict[str, Any], key: str) -> str:
    rows = [{key: name, **{m: v for m, v in values.items() if not isinstance(v, (dict, list))}}
            for name, values in section.items() if isinstance(values, dict)]
    columns = [key] + sorted({c for r in rows for c in r if c != key})
    return f"## {title}\n\n" + table(rows, columns) if rows else ""


SYSTEM_COLUMNS = ["n", "em", "f1", "correctness", "faithfulness", "answer_relevancy", "context_recall",
                  "context_recall_any_answering", "retrieval_f1", "hit_per_step", "rollout_deviation",
                  "keypoint_coverage"]


def _system_parts(section: dict[str, Any], out_dir: Path) -> list[str]:
    """`eval system`: overall, by chain type / hops / modality, CHARGE, notes, and a plot by chain type."""
    parts = [f"## Your system (`{section.get('source')}`)\n\n{section.get('answered')} of {section.get('records')} "
             f"questions answered; judge `{section.get('judge') or 'none'}`, LLM calls this run "
             f"{section.get('llm_calls')}, questions sent to the system this run "
             f"{section.get('system_queries_this_run')}.",
             table([{"": "all", **section["overall"]}], [""] + SYSTEM_COLUMNS)]
    for group in ("graph_type", "hops", "modality"):
        rows = [{group: value, **means} for value, means in section.get(f"by_{group}", {}).items()]
        if rows:
            parts.append(f"### By {group}\n\n" + table(rows, [group] + SYSTEM_COLUMNS))
    if section.get("charge", {}).get("n"):
        parts.append("CHARGE keypoints (Eq. 3-4) over questions with keypoints:\n\n" + table(
            [section["charge"]], ["n", "keypoint_correctness", "keypoint_coverage"]))
    parts += [f"- {note}" for note in section.get("notes", [])]
    by_type = section.get("by_graph_type", {})
    if by_type:
        os.environ.setdefault("MPLBACKEND", "Agg")
        import matplotlib.pyplot as plt

        metrics = [m for m in ("em", "correctness", "faithfulness", "context_recall")
                   if any(m in v for v in by_type.values())]
        fig, axis = plt.subplots(figsize=(10, 4))
        width = 0.8 / max(1, len(metrics))
        for i, metric in enumerate(metrics):
            axis.bar([j + i * width for j in range(len(by_type))], [v.get(metric, 0) for v in by_type.values()],
                     width, label=metric)
        axis.set_xticks([j + 0.4 - width / 2 for j in range(len(by_type))], list(by_type), rotation=15, fontsize=8)
        axis.set(ylabel="mean per question", ylim=(0, 1.05))
        axis.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(out_dir / "system_by_graph_type.png", dpi=110)
        plt.close(fig)
        parts.append("![system_by_graph_type.png](system_by_graph_type.png)")
    return parts


def write_report(everything: dict[str, Any], out_dir: Path) -> Path:
    """Write report.md (and its PNGs) for every section of metrics.json."""
    out_dir = Path(out_dir)
    parts = ["# hopgraph evaluation report", ""]
    retrieval = everything.get("retrieval")
    if retrieval:
        parts.append(f"## Retrieval\n\nDataset `{retrieval['dataset']['path']}`: {retrieval['dataset']['scored']} "
                     f"records scored over {retrieval['corpus']['units']} evidence units; "
                     f"{len(retrieval['dataset']['unresolved'])} records whose evidence is not in the graph.")
        parts += _retrieval_tables(retrieval)
        parts += [f"![{img}]({img})" for img in _plot_retrieval(retrieval, out_dir)]
    for name, title, key in (("answers", "Answers (reader LLM)", "setting"), ("agent", "Agent chains (MC-Search)", "retriever")):
        if everything.get(name):
            section = everything[name]
            parts.append(_flat_section(title, section.get("settings", {}), key))
            parts.append(f"Reader: `{section.get('reader')}`; judge: `{section.get('judge')}`; "
                         f"LLM calls this run: {section.get('llm_calls')}.")
            for key, basis in (("adaptability", "alias-aware exact match"), ("adaptability_judged", "judged correctness")):
                if section.get(key):
                    parts.append(f"MIRAGE rates (shares of questions, by {basis}):\n\n" + table(
                        [{"rate": k, "value": v} for k, v in section[key].items()], ["rate", "value"]))
            parts += [f"- {note}" for note in section.get("notes", [])]
    if everything.get("system"):
        parts += _system_parts(everything["system"], out_dir)
    if everything.get("dataset"):
        data = everything["dataset"]
        parts.append("## The dataset itself (MiRAGE)\n\n" + table(
            [{"figure": k, "value": v} for k, v in data.get("figures", {}).items()], ["figure", "value"]))
        parts += [f"- {note}" for note in data.get("notes", [])]
        parts.append(PAPERS)
    path = out_dir / "report.md"
    atomic_write_text(path, "\n\n".join(p for p in parts if p) + "\n")
    return path
