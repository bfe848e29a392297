"""`hopgraph eval system`: score the user's own RAG system (registered on evaluate.cli's app)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from evaluate.cli_common import DATASET_HELP, OUT_HELP, app, err, llm_progress, load_scored, settings_and_store


def _source(answers: Optional[Path], endpoint: Optional[str], model: Optional[str], cmd: Optional[str],
            timeout: float):
    """(name, ask) of the one source given; ask is None for --answers (the file is the answers)."""
    from evaluate.system_sources import command_source, endpoint_source

    given = [name for name, value in (("--answers", answers), ("--endpoint", endpoint), ("--cmd", cmd)) if value]
    if len(given) != 1:
        raise typer.BadParameter("give exactly one of --answers FILE, --endpoint URL --model NAME, --cmd TEMPLATE")
    if endpoint:
        if not model:
            raise typer.BadParameter("--endpoint needs --model (the model name your app expects)")
        return f"endpoint:{endpoint}#{model}", endpoint_source(endpoint, model, timeout)
    if cmd:
        return f"cmd:{cmd}", command_source(cmd, timeout)
    return f"answers:{answers}", None


@app.command("system")
def system_command(
    ctx: typer.Context,
    dataset: Path = typer.Argument(..., help=DATASET_HELP),
    answers: Optional[Path] = typer.Option(None, "--answers", help='Your system\'s answers: JSONL of {"id", "answer", '
                                           '"contexts": list of strings or {"id", "text"}, "steps"?: list of {"question", "contexts"}}.'),
    endpoint: Optional[str] = typer.Option(None, "--endpoint", help="Your RAG app as an OpenAI-compatible chat "
                                           "endpoint (base URL, e.g. http://127.0.0.1:8000/v1); contexts come back "
                                           "in a 'contexts' field of the response or message, or in JSON content."),
    model: Optional[str] = typer.Option(None, "--model", help="The model name sent to --endpoint."),
    cmd: Optional[str] = typer.Option(None, "--cmd", help="A command run per question, {question_file} replaced by "
                                      'a JSON file {"id", "question"}; stdout: JSON {"answer", "contexts", "steps"?} '
                                      "or plain text (the answer)."),
    timeout: float = typer.Option(300.0, "--timeout", min=1, help="Seconds one question may take (--endpoint, --cmd)."),
    limit: Optional[int] = typer.Option(None, "--limit", help="Only the first N scored records."),
    no_judge: bool = typer.Option(False, "--no-judge", help="Lexical metrics only, even with an LLM configured."),
    unique_gold: str = typer.Option("lexical", "--unique-gold", help="Which other units also answer a hop: lexical "
                                    "(its answer with its relation) or llm (lexical and BM25 candidates confirmed "
                                    "by the judge; one call per candidate)."),
    max_calls: Optional[int] = typer.Option(None, "--max-calls", help="Stop cleanly after this many judge calls."),
    out_dir: Path = typer.Option(Path("eval-out"), "--out", help=OUT_HELP),
) -> None:
    """Your RAG system's answers scored: correctness (EM/F1 with aliases, judged), faithfulness, answer relevancy,
    context recall per hop, CHARGE keypoints, and HPS / rollout deviation from per-step traces."""
    from evaluate.output import write_section
    from evaluate.report import write_report
    from evaluate.services import judge_model, llm_configured, make_judge_client
    from evaluate.system_eval import score_system
    from evaluate.system_sources import AnswerStore, collect, read_answers_file

    if unique_gold not in ("lexical", "llm"):
        raise typer.BadParameter("--unique-gold takes lexical or llm")
    source, ask = _source(answers, endpoint, model, cmd, timeout)
    settings, store = settings_and_store(ctx)
    _, corpus, resolution = load_scored(dataset, store)
    records = resolution.scored[:limit] if limit else resolution.scored
    failures: dict[str, str] = {}
    asked = 0
    if ask is None:
        replies = read_answers_file(answers)  # type: ignore[arg-type]
    else:
        progress, advance = llm_progress(len(records), "asking your system")
        with progress:
            replies, failures, asked = collect([(r.id, r.question) for r in records], ask,
                                               AnswerStore(out_dir, source), advance)
    for ident, reason in list(failures.items())[:5]:
        err.print(f"{ident}: your system gave no answer ({reason})", highlight=False, markup=False)
    missing = [r.id for r in records if r.id not in replies]
    client = None
    if llm_configured(settings) and not no_judge:
        client = make_judge_client(settings, "eval system", max_calls=max_calls)
    progress, advance = llm_progress(2 * len(records), "judge")
    with progress:
        metrics, rows = score_system(records, replies, corpus, client, settings, advance, unique_gold)
    if missing:
        metrics["notes"].append(f"{len(missing)} of {len(records)} questions have no answer from the system and "
                                "are not scored (a rerun asks for them again)")
    metrics.update({"dataset": str(dataset), "source": source, "records": len(records),
                    "answered": len(records) - len(missing), "unanswered": missing, "failures": failures,
                    "system_queries_this_run": asked, "unresolved": resolution.unresolved,
                    "judge": judge_model(settings) if client else None,
                    "llm_calls": client.accounting.calls if client else 0})
    write_report(write_section(out_dir, "system", metrics, rows), out_dir)
    if client is not None:
        client.raise_if_exhausted()
    for note in metrics["notes"]:
        err.print(note, highlight=False, markup=False)
    overall = metrics["overall"]
    err.print(f"system: EM {overall.get('em', 0):.3f}  F1 {overall.get('f1', 0):.3f}  context recall "
              f"{overall.get('context_recall', 0):.3f}  correctness {overall.get('correctness', float('nan')):.3f}  "
              f"faithfulness {overall.get('faithfulness', float('nan')):.3f}  (n={overall['n']})", highlight=False)
    err.print(f"questions sent to your system this run: {asked}; judge calls this run: {metrics['llm_calls']}; "
              f"wrote {out_dir / 'metrics.json'}", highlight=False)
