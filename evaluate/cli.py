"""`hopgraph eval`: the evaluation verbs (retrieval, answers, agent, dataset, import-hotpotqa).

Every verb reads a dataset JSONL (ours or MC-Search-shaped), resolves its
evidence against the corpus graph of the current data dir, and writes
metrics.json, results.jsonl and report.md into --out.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.progress import Progress

from evaluate.cli_common import DATASET_HELP, OUT_HELP, app, err, llm_progress, load_scored, settings_and_store


def _csv(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def _ks(text: str) -> list[int]:
    try:
        ks = sorted({int(part) for part in _csv(text)})
    except ValueError:
        raise typer.BadParameter(f"--k must be comma-separated integers, got {text!r}") from None
    if not ks or ks[0] < 1:
        raise typer.BadParameter("--k values must be at least 1")
    return ks


@app.command()
def retrieval(
    ctx: typer.Context,
    dataset: Path = typer.Argument(..., help=DATASET_HELP),
    retriever: str = typer.Option("bm25,dense,hybrid,graph,oracle,random", "--retriever",
                                  help="Comma-separated baselines: bm25, dense, hybrid, graph, oracle, random."),
    k: str = typer.Option("1,3,5,10", "--k", help="Comma-separated cut-offs for every metric."),
    run: Optional[list[Path]] = typer.Option(None, "--run", help="An external system's results JSONL "
                                             '({"id", "hop"?, "ranked": [ids]} per line); repeatable.'),
    out_dir: Path = typer.Option(Path("eval-out"), "--out", help=OUT_HELP),
) -> None:
    """Score retrievers per hop and per question: hit rate, recall, all-hops recall, MRR, precision, NDCG."""
    from evaluate.output import write_section
    from evaluate.report import write_report
    from evaluate.retrieval import evaluate_retrieval
    from evaluate.retrievers import BASELINES, build_retrievers
    from evaluate.runfile import RunFileRetriever
    from evaluate.services import make_embedder

    names, ks = _csv(retriever), _ks(k)
    unknown = [n for n in names if n not in BASELINES]
    if unknown:
        raise typer.BadParameter(f"unknown retriever {unknown[0]!r}; choose from {', '.join(BASELINES)}")
    settings, store = settings_and_store(ctx)
    _, corpus, resolution = load_scored(dataset, store)
    retrievers = build_retrievers(names, corpus, lambda: make_embedder(settings))
    for path in run or []:
        external = RunFileRetriever(path)
        retrievers[external.name] = external
    with Progress(console=err, transient=True) as progress:
        result = evaluate_retrieval(resolution.scored, retrievers, ks, progress)
    section = {"k": ks, "dataset": {"path": str(dataset), "records": len(resolution.scored) + len(resolution.unresolved),
                                    "scored": len(resolution.scored), "unresolved": resolution.unresolved},
               "corpus": {"units": len(corpus), "chunks": corpus.labels.count("Chunk"),
                          "images": corpus.labels.count("Image")},
               "retrievers": result.metrics, "seconds": result.seconds}
    report = write_report(write_section(out_dir, "retrieval", section, result.rows), out_dir)
    for name, values in result.metrics.items():
        q = values.get("question", {})
        top = max(ks)
        err.print(f"{name:>10}: question hit@{top} {q.get(f'hit@{top}', 0):.3f}  recall@{top} "
                  f"{q.get(f'recall@{top}', 0):.3f}  mrr@{top} {q.get(f'mrr@{top}', 0):.3f}", highlight=False)
    err.print(f"wrote {out_dir / 'metrics.json'} and {report}", highlight=False)


@app.command("import-hotpotqa")
def import_hotpotqa_command(
    source: Path = typer.Argument(..., help="A HotpotQA JSON file (a list of questions with supporting_facts)."),
    out: Path = typer.Argument(..., help="The JSONL dataset to write (MC-Search-shaped records)."),
    corpus_dir: Optional[Path] = typer.Option(None, "--corpus-dir", help="The folder of one text file per title "
                                              "(e.g. ../shared/corpus/text/wiki_hotpotqa_train100) that you ingest."),
) -> None:
    """Turn HotpotQA questions into records whose evidence is their supporting paragraphs."""
    from evaluate.hotpotqa import import_hotpotqa

    count = import_hotpotqa(source, out, corpus_dir)
    err.print(f"wrote {count} records to {out}; ingest the paragraph files (hopgraph ingest "
              f"{corpus_dir or 'DIR'}) into the data dir you evaluate with", highlight=False)


@app.command()
def answers(
    ctx: typer.Context,
    dataset: Path = typer.Argument(..., help=DATASET_HELP),
    settings_list: str = typer.Option("base,oracle,mixed", "--settings",
                                      help="MIRAGE settings: base (question only), oracle (gold evidence), "
                                           "mixed (gold plus retrieved noise, 5 passages)."),
    noise_retriever: str = typer.Option("bm25", "--noise-retriever", help="Where mixed's noise passages come from."),
    limit: Optional[int] = typer.Option(None, "--limit", help="Only the first N scored records."),
    max_calls: Optional[int] = typer.Option(None, "--max-calls", help="Stop cleanly after this many LLM calls."),
    out_dir: Path = typer.Option(Path("eval-out"), "--out", help=OUT_HELP),
) -> None:
    """Reader accuracy (exact match with aliases, F1, judged correctness) per setting, and MIRAGE's four rates."""
    from evaluate.answers import SETTINGS, evaluate_answers
    from evaluate.output import write_section
    from evaluate.report import write_report
    from evaluate.retrieval import question_queries
    from evaluate.retrievers import build_retrievers
    from evaluate.services import judge_is_reader, judge_model, make_embedder, make_judge_client

    chosen = _csv(settings_list)
    if not chosen or any(s not in SETTINGS for s in chosen):
        raise typer.BadParameter(f"--settings takes {', '.join(SETTINGS)}")
    settings, store = settings_and_store(ctx)
    client = make_judge_client(settings, "eval answers", max_calls=max_calls)
    _, corpus, resolution = load_scored(dataset, store)
    records = resolution.scored[:limit] if limit else resolution.scored
    noise: dict[str, list[str]] = {}
    if "mixed" in chosen:
        retriever = build_retrievers([noise_retriever], corpus, lambda: make_embedder(settings))[noise_retriever]
        items = question_queries(records)
        rankings = retriever.search([q for q, _, _ in items], 5 + max(len(r.gold_ids) for r in records))
        noise = {record.id: ranking for (_, record, _), ranking in zip(items, rankings)}
    progress, advance = llm_progress(2 * len(records) * len(chosen), "reader and judge")
    with progress:
        metrics, rows = evaluate_answers(records, corpus, chosen, noise, client, settings, advance)
    same = judge_is_reader(settings)
    if same:
        metrics["notes"].append(same)
        err.print(same, highlight=False, markup=False)
    metrics.update({"dataset": str(dataset), "reader": client.model_for("reader"), "judge": judge_model(settings),
                    "noise_retriever": noise_retriever,
                    "llm_calls": client.accounting.calls})
    write_report(write_section(out_dir, "answers", metrics, rows), out_dir)
    client.raise_if_exhausted()  # --max-calls reached: say so after saving what was judged
    for setting, values in metrics["settings"].items():
        err.print(f"{setting:>7}: EM {values.get('em', 0):.3f}  F1 {values.get('f1', 0):.3f}  "
                  f"correctness {values.get('correctness', float('nan')):.3f}  (n={values['n']})", highlight=False)
    err.print(f"LLM calls this run: {client.accounting.calls}; wrote {out_dir / 'metrics.json'}", highlight=False)


@app.command("dataset")
def dataset_command(
    ctx: typer.Context,
    dataset: Path = typer.Argument(..., help=DATASET_HELP),
    tau: Optional[float] = typer.Option(None, "--tau", help="Near-duplicate pair score threshold (default: dedup.tau)."),
    out_dir: Path = typer.Option(Path("eval-out"), "--out", help=OUT_HELP),
) -> None:
    """The dataset's own quality: structural figures always, LLM-judged ones (MiRAGE) when an LLM is configured."""
    from evaluate.dataset_eval import judged, structural, visual_grounding
    from evaluate.output import write_section
    from evaluate.report import write_report
    from evaluate.services import llm_configured, make_embedder, make_judge_client

    settings, store = settings_and_store(ctx)
    _, corpus, resolution = load_scored(dataset, store)
    records = resolution.scored
    figures = structural(records, corpus, make_embedder(settings), tau if tau is not None else settings.dedup.tau)
    notes, rows = [], []
    if figures["topic_jsd"] is None:
        notes.append("topic JSD: the graph has no topics (IN_TOPIC) for the evidence chunks")
    if llm_configured(settings):
        client = make_judge_client(settings, "eval dataset")
        progress, advance = llm_progress(len(records), "judge")
        with progress:
            judged_figures, rows = judged(records, corpus, client, settings, advance)
        figures.update(judged_figures)
        if settings.llm.vision_model:
            figures.update(visual_grounding(records, Path(dataset).parent, client, settings))
        else:
            notes.append("visual grounding of image hops needs a vision model (llm.vision_model)")
    else:
        notes.append("faithfulness, relevance, answerability, difficulty, judged hops and visual grounding "
                     "need an LLM (set OPENAI_BASE_URL or OPENAI_API_KEY); only structural figures were computed")
    for note in notes:
        err.print(note, highlight=False, markup=False)
    section = {"dataset": str(dataset), "figures": figures, "notes": notes,
               "unresolved": resolution.unresolved}
    write_report(write_section(out_dir, "dataset", section, rows), out_dir)
    for key, value in figures.items():
        err.print(f"{key:>28}: {value}", highlight=False, markup=False)


@app.command()
def agent(
    ctx: typer.Context,
    dataset: Path = typer.Argument(..., help=DATASET_HELP),
    retriever: str = typer.Option("dense", "--retriever", help="Comma-separated retrievers the agent searches with."),
    k: int = typer.Option(3, "--k", min=1, help="Units retrieved per sub-question."),
    limit: Optional[int] = typer.Option(None, "--limit", help="Only the first N scored records."),
    max_calls: Optional[int] = typer.Option(None, "--max-calls", help="Stop cleanly after this many LLM calls."),
    out_dir: Path = typer.Option(Path("eval-out"), "--out", help=OUT_HELP),
) -> None:
    """An iterative agent (next sub-question, retrieve, read; up to 6 steps) scored against the gold chain (MC-Search)."""
    from evaluate.agent import run_agent
    from evaluate.output import write_section
    from evaluate.report import write_report
    from evaluate.retrievers import BASELINES, build_retrievers
    from evaluate.services import judge_is_reader, judge_model, make_embedder, make_judge_client

    names = _csv(retriever)
    unknown = [n for n in names if n not in BASELINES or n == "oracle"]
    if unknown:
        raise typer.BadParameter(f"--retriever {unknown[0]!r}: choose from bm25, dense, hybrid, graph, random")
    settings, store = settings_and_store(ctx)
    client = make_judge_client(settings, "eval agent", max_calls=max_calls)
    _, corpus, resolution = load_scored(dataset, store)
    records = resolution.scored[:limit] if limit else resolution.scored
    retrievers = build_retrievers(names, corpus, lambda: make_embedder(settings))
    with err.status(f"agent: {len(records)} questions x {len(names)} retrievers"):
        metrics, rows = run_agent(records, corpus, retrievers, k, client, settings)
    same = judge_is_reader(settings)
    if same:
        err.print(same, highlight=False, markup=False)
    section = {"dataset": str(dataset), "k": k, "reader": client.model_for("reader"), "judge": judge_model(settings),
               "notes": [same] if same else [], "settings": metrics,
               "llm_calls": client.accounting.calls}
    write_report(write_section(out_dir, "agent", section, rows), out_dir)
    client.raise_if_exhausted()
    for name, values in metrics.items():
        err.print(f"{name:>8}: hit/step {values.get('hit_per_step', 0):.3f}  deviation "
                  f"{values.get('rollout_deviation', 0):.2f}  F1 {values.get('f1', 0):.3f}  "
                  f"dF1 {values.get('delta_f1', 0):+.3f}  golden F1 {values.get('golden_f1', 0):.3f}", highlight=False)
    err.print(f"LLM calls this run: {client.accounting.calls}; wrote {out_dir / 'metrics.json'}", highlight=False)


from evaluate import system_cli  # noqa: E402,F401  (registers `eval system` on this app)
