"""The judge against a real SQLite store and the loopback server: runs stored per model, the
cache on a rerun, safety flags, --only-missing, the CLI with its progress and --report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from reviewer.cli import _register, app
from reviewer.services import judging
from reviewer.services.importing import import_file
from reviewer.store import open_store
from rubrics.loader import load_rubric_file
from tests.judge import helpers
from tests.judge.helpers import RUBRIC, answer, options
from tests.judge.loopback import LoopbackServer, Reply, user_prompt

db = helpers.db  # the fixtures: a SQLite file and a PostgreSQL schema, seven items on each
store = helpers.store


def test_run_is_stored_and_a_rerun_makes_no_call(store: Any, server: LoopbackServer) -> None:
    [first] = judging.run(store, options(server))
    assert first.totals.status == "done" and first.totals.items == 7
    assert server.count == 7
    report = store.runs.judge_run_report(first.run_id)
    assert json.dumps(report)  # plain data
    [second] = judging.run(store, options(server))
    assert server.count == 7  # every reply came from the store's judge cache
    assert second.run_id != first.run_id and second.totals.errors == 0
    assert second.totals.cached == 7 and first.totals.cached == 0


def test_panel_stores_one_run_per_model_and_flags_safety_once(store: Any, server: LoopbackServer) -> None:
    server.reset(default=Reply(lambda body: answer(5 if body["model"] == "judge-a" else 2)))
    runs = judging.run(store, options(server, models=["openai/judge-a", "openai/judge-b"]))
    assert [r.model for r in runs] == ["openai/judge-a", "openai/judge-b"]
    assert [r.totals.safety_hits for r in runs] == [1, 1]
    assert len({r.run_id for r in runs}) == 2
    [flag] = store.safety.open_flags("judge-test@1.0.0")  # one flag, not one per model
    assert (flag.item_id, flag.gate, flag.matched) == ("leak", "pii_exposure", "123-45-6789")
    reports = [store.runs.judge_run_report(r.run_id) for r in runs]
    assert [rep["dimensions"]["accuracy"]["mean"] for rep in reports] == [5, 2]


def test_a_run_leaves_no_writer_thread_behind(store: Any, server: LoopbackServer) -> None:
    """Each model's run writes through its own thread; the run lets it go (a panel of models, or a
    notebook judging again and again, would otherwise keep one idle thread per run)."""
    import threading

    def writers() -> int:
        return sum(t.name.startswith("judge-writer") for t in threading.enumerate())

    before = writers()
    judging.run(store, options(server, models=["openai/judge-a", "openai/judge-b"]))
    assert writers() == before


def test_only_missing_scores_nothing_twice(store: Any, server: LoopbackServer) -> None:
    judging.run(store, options(server, max_cost=None))
    server.reset()
    [again] = judging.run(store, options(server, only_missing=True))
    assert again.totals.items == 0 and server.count == 0


def test_one_id_in_two_datasets_each_item_gets_its_own_verdict(store: Any, server: LoopbackServer,
                                                              tmp_path: Path) -> None:
    """Results were keyed by item id: with "dup" in datasets a and b, both verdicts were written
    to one of them (the other had none, so --only-missing judged it again on every run)."""
    for ds, output in (("a", "Paris is the capital of France."), ("b", "Berlin is the capital of France.")):
        path = tmp_path / f"{ds}.jsonl"
        path.write_text(json.dumps({"id": "dup", "input": "Capital of France?", "output": output}) + "\n")
        import_file(store, str(path), "judge-test@1.0.0", dataset=ds)
    server.reset(default=Reply(lambda body: answer(5 if "Paris" in user_prompt(body) else 1)))
    [run] = judging.run(store, options(server))
    assert run.totals.items == 9
    verdicts = {}
    for ds in ("a", "b"):
        [row] = [r for r in store.queue.queue_page("triage", "judge-test@1.0.0", dataset=ds) if r.item_id == "dup"]
        [rec] = store.items.item_view(row.item_pk).judge["accuracy"]
        verdicts[ds] = rec.score
    assert verdicts == {"a": 5, "b": 1}
    server.reset()
    [again] = judging.run(store, options(server, only_missing=True))
    assert again.totals.items == 0 and server.count == 0
    # a result without a key is matched by id only where that is unambiguous
    from reviewer.errors import UserError
    from rubrics.results import ScoreResult

    loose = store.runs.create_judge_run("judge-test@1.0.0", "openai/judge-x")
    with pytest.raises(UserError, match="item id 'dup' is in several datasets"):
        store.runs.record_results(loose, [ScoreResult("dup", "accuracy", "llm_judge", score=3, normalised=0.5)])


def test_only_missing_judges_an_item_again_after_its_content_changed(store: Any, server: LoopbackServer,
                                                                     tmp_path: Path) -> None:
    judging.run(store, options(server))
    path = tmp_path / "edit.jsonl"
    path.write_text(json.dumps({"id": "q1", "input": "Question 1?", "output": "Answer 1, edited."}) + "\n")
    import_file(store, str(path), "judge-test@1.0.0", update_existing=True)
    server.reset()
    [again] = judging.run(store, options(server, only_missing=True))
    assert again.totals.items == 1 and server.count == 1
    assert "edited" in user_prompt(server.requests[0])


def test_not_applicable_is_not_a_judge_error_but_a_failed_call_is(store: Any) -> None:
    from rubrics.results import ScoreResult

    run = store.runs.create_judge_run("judge-test@1.0.0", "openai/judge-x")
    store.runs.record_results(run, [
        ScoreResult("q0", "accuracy", "llm_judge", not_applicable=True, rationale="not applicable"),
        ScoreResult("q0", "brevity", "deterministic", score=5, normalised=1.0),
        ScoreResult("q1", "accuracy", "llm_judge", error="timeout"),
        ScoreResult("q1", "brevity", "deterministic", score=5, normalised=1.0),
    ])
    errors = {r.item_id: r.errors for r in store.queue.queue_page("triage", "judge-test@1.0.0")}
    assert (errors["q0"], errors["q1"]) == (0, 1)


def test_only_missing_retries_the_items_whose_judge_call_failed(store: Any, server: LoopbackServer) -> None:
    # The first item's call fails twice (one attempt, one retry): a recorded error, not a score.
    server.reset(Reply(status=500), Reply(status=500))
    [first] = judging.run(store, options(server, concurrency=1))
    assert first.totals.errors == 1 and server.count == 2 + 6
    server.reset()
    [retry] = judging.run(store, options(server, only_missing=True))
    assert retry.totals.items == 1 and retry.totals.errors == 0 and server.count == 1
    assert store.items.item_view(1).judge["accuracy"][-1].score == 4  # the retry's answer is current
    server.reset()
    [after] = judging.run(store, options(server, only_missing=True))
    assert after.totals.items == 0 and server.count == 0


def test_cli_judges_with_progress_and_reports(store: Any, server: LoopbackServer, db: str) -> None:
    _register()
    runner = CliRunner()
    out = runner.invoke(app, ["judge", "--rubric", "judge-test@1.0.0", "--model", "openai/judge-x",
                              "--api-base", server.url, "--api-key", "sk-test", "--db", db])
    assert out.exit_code == 0, out.output
    assert "accuracy" in out.output and "· done" in out.output
    # a table's title is a line of its own, above the top border (never sharing its line)
    [title] = [line for line in out.output.splitlines() if "· done" in line]
    assert title.strip() == "run 1 · openai/judge-x · done", title
    assert "Is" in user_prompt(server.requests[0])
    dry = runner.invoke(app, ["judge", "--rubric", "judge-test@1.0.0", "--model", "openai/judge-x",
                              "--dry-run", "--db", db])
    assert dry.exit_code == 0 and "7 judge calls" in dry.output and "temperature 0" not in dry.output
    sampled = runner.invoke(app, ["judge", "--rubric", "judge-test@1.0.0", "--model", "openai/judge-x",
                                  "--dry-run", "--samples", "3", "--db", db])
    assert "21 judge calls" in sampled.output and "temperature 0" in sampled.output
    report = runner.invoke(app, ["judge", "--report", "1", "--db", db])
    assert report.exit_code == 0 and "accuracy" in report.output
    [title] = [line for line in report.output.splitlines() if "per dimension" in line]
    assert title.strip() == "per dimension", title
    plan = runner.invoke(app, ["judge", "--rubric", "judge-test@1.0.0", "--model", "openai/judge-x",
                               "--dry-run", "--samples", "3", "--format", "json", "--db", db])
    # the temperature note goes to standard error: standard output is the JSON alone
    assert plan.exit_code == 0 and "temperature 0" in plan.stderr
    planned = json.loads(plan.stdout)["openai/judge-x"]
    assert (planned["items"], planned["calls"], planned["total_calls"]) == (7, {"accuracy": 21}, 21)
    stored = runner.invoke(app, ["judge", "--report", "1", "--format", "json", "--db", db])
    totals = json.loads(stored.stdout)
    assert (totals["run"], totals["model"], totals["status"]) == (1, "openai/judge-x", "done")
    assert totals["dimensions"]["accuracy"]["scores"] == 7


def test_max_cost_stops_cleanly_and_only_missing_resumes(store: Any, server: LoopbackServer) -> None:
    # gpt-4o-mini has a listed price, so each loopback reply costs about $0.000027.
    model = ["openai/gpt-4o-mini"]
    [capped] = judging.run(store, options(server, models=model, max_cost=0.00005, concurrency=1))
    assert capped.totals.status == "cost_cap" and capped.totals.items == 2
    assert store.runs.judge_run_report(capped.run_id)["status"] == "cost_cap"
    [resumed] = judging.run(store, options(server, models=model, only_missing=True))
    assert resumed.totals.status == "done" and resumed.totals.items == 5
    assert server.count == 2 + 5  # the call refused at the cap was never sent


@pytest.mark.slow
def test_ctrl_c_keeps_what_was_scored_and_only_missing_finishes(
    store: Any, server: LoopbackServer, db: str
) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    server.reset(default=Reply(answer(4), delay=0.5))
    cmd = [sys.executable, "-m", "reviewer", "judge", "--rubric", "judge-test@1.0.0", "--model",
           "openai/judge-x", "--api-base", server.url, "--api-key", "k", "--concurrency", "1",
           "--db", db]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"})
    deadline = time.monotonic() + 60
    while server.count < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130 and "resume with --only-missing" in err and "Traceback" not in err
    report = store.runs.judge_run_report(1)  # the fixture's import made no run: this is the first
    assert (report["model"], report["status"]) == ("openai/judge-x", "interrupted")
    kept = report["dimensions"]["accuracy"]["scores"]
    assert 1 <= kept < 7
    server.reset()
    [rest] = judging.run(store, options(server, only_missing=True))
    assert rest.totals.items == 7 - kept and server.count == 7 - kept


def test_bad_requests_are_one_clear_line(store: Any, server: LoopbackServer, db: str) -> None:
    from reviewer.errors import UserError

    _register()
    runner = CliRunner()
    no_model = runner.invoke(app, ["judge", "--rubric", "judge-test@1.0.0", "--db", db])
    assert isinstance(no_model.exception, UserError)
    assert "no judge model: pass --model" in str(no_model.exception)
    unknown = runner.invoke(app, ["judge", "--rubric", "nope@9.9.9", "--model", "m", "--db", db])
    assert isinstance(unknown.exception, UserError) and "nope" in str(unknown.exception)
    missing = runner.invoke(app, ["judge", "--db", db])
    assert isinstance(missing.exception, UserError) and "--rubric is required" in str(missing.exception)
    assert server.count == 0


def test_human_corrections_go_into_the_prompt(server: LoopbackServer, tmp_path: Path) -> None:
    text = RUBRIC.replace("id: judge-test", "id: judge-learn") + "judge: {correction_examples: 2}\n"
    path = tmp_path / "learn.yaml"
    path.write_text(text)
    s = open_store(str(tmp_path / "learn.db"))
    s.rubrics.add_rubric(load_rubric_file(path), text)
    corrected = {"id": "old", "input": "Capital of Spain?", "output": "Lisbon.",
                 "judge": {"model": "openai/judge-x", "scores": {"accuracy": 5, "brevity": 5}},
                 "human": [{"reviewer": "ana", "scores": {"accuracy": {"score": 1,
                                                                        "reason": "Lisbon is in Portugal"}}}]}
    items = tmp_path / "learn.jsonl"
    items.write_text(json.dumps(corrected) + "\n" + json.dumps({"id": "new", "input": "Capital of Peru?",
                                                                 "output": "Lima."}) + "\n")
    import_file(s, str(items), "judge-learn@1.0.0")
    [run] = judging.run(s, judging.JudgeOptions(rubric_ref="judge-learn@1.0.0", models=["openai/judge-x"],
                                                api_base=server.url, api_key="k", only_missing=True))
    assert run.totals.items == 1
    prompt = user_prompt(server.requests[0])
    assert "Lisbon is in Portugal" in prompt and "scored it 1" in prompt


def test_panel_score_follows_the_rubric_and_calibration_names_the_best_model(
    db: str, server: LoopbackServer, tmp_path: Path
) -> None:
    """Three judges: one always 5, one the humans' mirror image, one that agrees with them. The
    item's judge score is their median (the rubric asks for it), the spread between them is kept,
    and calibration names the agreeing judge."""
    from sqlalchemy import text as sql

    from reviewer.services.calibrate_service import calibrate

    text = RUBRIC.replace("id: judge-test", "id: judge-panel") + "judge: {panel_aggregate: median}\n"
    path = tmp_path / "panel.yaml"
    path.write_text(text)
    s = open_store(db)
    s.rubrics.add_rubric(load_rubric_file(path), text)
    humans = [1, 2, 3, 4, 5, 3, 2, 4]
    rows = [{"id": f"p{i}", "input": f"Question {i}?", "output": f"Answer {i}.",
             "human": [{"reviewer": "ana", "scores": {"accuracy": h}}]} for i, h in enumerate(humans)]
    items = tmp_path / "panel.jsonl"
    items.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    import_file(s, str(items), "judge-panel@1.0.0")

    def reply(body: dict[str, Any]) -> str:
        h = humans[int(user_prompt(body).split("Answer ")[1].split(".")[0])]
        return answer({"judge-high": 5, "judge-mirror": 6 - h, "judge-good": h}[body["model"]])

    server.reset(default=Reply(reply))
    _register()
    models = ["openai/judge-high", "openai/judge-mirror", "openai/judge-good"]
    out = CliRunner().invoke(app, ["judge", "--rubric", "judge-panel@1.0.0", "--api-base", server.url,
                                   "--api-key", "k", "--db", db, *(a for m in models for a in ("--model", m))])
    assert out.exit_code == 0, out.output
    assert "judge panel (median of the models per dimension): on 8 of 8 items" in " ".join(out.output.split())
    with s.db.read() as conn:
        stored: dict[str, float | None] = {
            k: v for k, v in conn.execute(sql("SELECT item_id, judge_overall FROM item WHERE item_id = 'p0'"))}
        spread = conn.execute(sql("SELECT judge_spread FROM item WHERE item_id = 'p0'")).scalar()
    # p0: judges say 5, 5, 1 -> median 5 (the mean would be 3.67); brevity passes (5).
    assert stored["p0"] == pytest.approx(1.0)
    assert spread == pytest.approx(1.0)  # 5 against 1 on a 1-5 scale: the whole scale apart
    exported = {r["id"]: r for r in s.items.export_rows("judge-panel@1.0.0")}
    acc = exported["p3"]["dimensions"]["accuracy"]
    assert acc["judge_models"] == {"openai/judge-high": 5, "openai/judge-mirror": 2, "openai/judge-good": 4}
    # spread has one definition (issue 12): max − min of the normalised scores, as the queue's
    # judge_spread above; 5 against 2 on 1–5 is 0.75 of the scale (export used to print 3 raw points)
    assert acc["judge"] == 4 and acc["judge_spread"] == pytest.approx(0.75)
    report = calibrate(s, "judge-panel@1.0.0", draws=50)
    [accuracy] = [d for d in report["dimensions"] if d["dimension"] == "accuracy"]
    assert accuracy["best_model"] == "openai/judge-good"
    assert set(report["per_model"]) == {"openai/judge-high", "openai/judge-mirror", "openai/judge-good"}
    table = CliRunner().invoke(app, ["calibrate", "--rubric", "judge-panel@1.0.0", "--db", db])
    assert "closest to people: openai/judge-good" in " ".join(table.output.split()), table.output


def test_calibration_compares_agreement_before_and_after_learning(server: LoopbackServer, tmp_path: Path) -> None:
    """A first run has no corrections to learn from; people then correct it; a second run puts
    two of their corrections in the prompt. Calibration shows both runs' agreement on the same
    items, leaving out the three whose answers the judge was shown: the two newest corrections
    (l9, l8) for every other item, and l6 for those two (an item never sees its own; l7 is no
    correction, the judge gave it 3 too)."""
    from reviewer.services.calibrate_service import calibrate

    text = RUBRIC.replace("id: judge-test", "id: judge-learn") + "judge: {correction_examples: 2}\n"
    path = tmp_path / "learn.yaml"
    path.write_text(text)
    s = open_store(str(tmp_path / "learn.db"))
    s.rubrics.add_rubric(load_rubric_file(path), text)
    humans = [1, 2, 3, 4, 5, 2, 4, 3, 1, 5]
    items = tmp_path / "learn.jsonl"
    items.write_text("".join(json.dumps({"id": f"l{i}", "input": f"Question {i}?", "output": f"Answer {i}."}) + "\n"
                             for i in range(len(humans))))
    import_file(s, str(items), "judge-learn@1.0.0")

    def reply(body: dict[str, Any]) -> str:
        prompt = user_prompt(body)
        h = humans[int(prompt.split("Answer ")[1].split(".")[0])]  # the output comes before any example
        return answer(h if "Scores people gave" in prompt else 6 - h)  # learns from the examples

    server.reset(default=Reply(reply))
    options = judging.JudgeOptions(rubric_ref="judge-learn@1.0.0", models=["openai/judge-x"],
                                   api_base=server.url, api_key="k")
    judging.run(s, options)
    assert not any("Scores people gave" in user_prompt(b) for b in server.requests)
    for i, h in enumerate(humans):
        s.scores.add_human_score(i + 1, "accuracy", "ana", h, reason=f"the answer deserves {h}")
    judging.run(s, options)
    [accuracy] = [d for d in calibrate(s, "judge-learn@1.0.0", draws=50)["dimensions"]
                  if d["dimension"] == "accuracy"]
    learned = accuracy["corrections"]
    assert learned["left_out"] == 3
    assert learned["before"]["n"] == learned["after"]["n"] == 7
    before = learned["before"]["alpha"]
    assert learned["after"]["alpha"] == pytest.approx(1.0) and before is not None and before < 0
    _register()
    table = CliRunner().invoke(app, ["calibrate", "--rubric", "judge-learn@1.0.0", "--db", str(tmp_path / "learn.db")])
    said = " ".join(table.output.split())
    assert "corrections in the prompt α" in said and "→ 1.000 on 7 items" in said, table.output
