"""``rubricate align`` against the loopback judge server, whose replies depend on the prompt: with
people's corrections in the prompt it scores as people do, without them it is off. On SQLite and
PostgreSQL: align picks a candidate that agrees and says the test alpha is better; a judge that
ignores examples is "no better" and ``--write`` registers nothing; no test item reaches a prompt
as an example or in the rewrite's meta-prompt; the same seed gives the same split; ``--max-cost``
stops cleanly; a reply that does not parse is that item's error."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from reviewer.cli import _register, app
from reviewer.services import judging
from reviewer.services.align_result import stored
from reviewer.services.importing import import_file
from reviewer.store import Store, open_store
from rubrics.loader import load_rubric_text
from tests.cli import run_cli
from tests.judge import helpers
from tests.judge.loopback import LoopbackServer, Reply, system_prompt, user_prompt

db = helpers.db  # the fixture: a SQLite file and a PostgreSQL schema
REF = "align-test@1.0.0"
N = 40
RUBRIC = helpers.RUBRIC.replace("id: judge-test", "id: align-test")  # accuracy (judge) and brevity
#: Every item's output names its true quality, which people give; the judge sees it only when
#: people's examples tell it how to read it.
OUTPUT = re.compile(r"<<<OUTPUT-[0-9a-f]{16}>>>\nAnswer (\d+) has quality (\d)\.")


def truth(i: int) -> int:
    return 1 + (i * 7) % 5


def _reply(score: int) -> str:
    return json.dumps({"score": score, "rationale": "because", "evidence": [], "confidence": 0.9})


def follows_examples(body: dict[str, object]) -> str:
    """Scores as people do when corrections are in the prompt; otherwise reads the scale backwards."""
    if "You improve the instructions" in system_prompt(body):
        return json.dumps({"prompt": "Score {output} strictly for {input}.", "rationale": "people are strict"})
    found = OUTPUT.search(user_prompt(body))
    assert found, user_prompt(body)
    q = int(found.group(2))
    if "## Scores people gave" in user_prompt(body):
        return _reply(q)
    return _reply(6 - q)  # the scale read backwards


def ignores_examples(body: dict[str, object]) -> str:
    """The scale read backwards whatever the prompt holds."""
    if "You improve the instructions" in system_prompt(body):
        return json.dumps({"prompt": "Score {output} strictly for {input}.", "rationale": "people are strict"})
    found = OUTPUT.search(user_prompt(body))
    assert found
    return _reply(6 - int(found.group(2)))


def _setup(db: str, server: LoopbackServer, tmp_path: Path) -> Store:
    s = open_store(db)
    s.rubrics.add_rubric(load_rubric_text(RUBRIC, "align.yaml"), RUBRIC)
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps({"id": f"q{i:02d}", "input": f"Question {i}?",
                                         "output": f"Answer {i} has quality {truth(i)}."}) + "\n" for i in range(N)))
    import_file(s, str(items), REF)
    s.queue.create_audit_sample(REF, N, seed=1)
    server.reset(default=Reply(content=follows_examples))
    judging.run(s, judging.JudgeOptions(rubric_ref=REF, models=["openai/judge-x"], api_base=server.url,
                                        api_key="k", timeout=5, retries=0))
    for r in s.runs.items_for_judging(REF):  # people label every audit item, with a reason
        i = int(r["id"][1:])
        s.scores.add_human_score(r["pk"], "accuracy", "ana", truth(i), reason=f"reason-of-{r['id']}", sample="audit")
    server.reset()
    return s


def _align(db: str, server: LoopbackServer, *more: str, model: str = "openai/judge-x") -> Result:
    _register()
    return CliRunner().invoke(app, ["align", "--rubric", REF, "--model", model, "--api-base", server.url,
                                    "--api-key", "k", "--timeout", "5", "--retries", "0", "--db", db, *more])


def test_align_picks_the_candidate_that_agrees_and_says_better_on_test(
        db: str, server: LoopbackServer, tmp_path: Path) -> None:
    s = _setup(db, server, tmp_path)
    server.reset(default=Reply(content=follows_examples))
    out = _align(db, server, "--format", "json", "--write")
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    [dim] = data["dimensions"]
    assert dim["chosen"] == "k2"  # k2, k4, k8 all agree on dev: the tie goes to the first (all cost 0)
    assert {c["name"] for c in dim["candidates"]} == {"current", "k2", "k4", "k8", "rewrite"}
    by = {c["name"]: c for c in dim["candidates"]}
    assert by["k2"]["dev_alpha"] == pytest.approx(1.0) and by["current"]["dev_alpha"] < 0
    test = dim["test"]
    assert test["after"]["alpha"] == pytest.approx(1.0) and test["before"]["alpha"] < 0
    assert test["difference_ci"][0] > 0 and test["verdict"] == "better"
    assert set(test["before"]) >= {"alpha", "alpha_ci", "kappa", "bias"}
    assert len(dim["dev_items"]) == 28 and len(dim["test_items"]) == 12
    # the keys of the JSON contract (docs/formats.md, "Align JSON"), in the order printed
    assert list(data) == ["rubric", "dimensions", "written"]
    assert list(dim) == ["dimension", "run", "model", "seed", "test_share", "dev_items", "test_items", "rewrite",
                         "candidates", "chosen", "test", "status"]
    assert list(dim["rewrite"]) == ["meta_prompt", "disagreements", "proposal", "error", "cost_usd"]
    assert list(by["k2"]) == ["name", "prompt_hash", "prompt", "k", "model", "samples", "dev_alpha", "dev_n",
                              "errors", "cost_usd", "status", "error"]
    assert list(test) == ["n", "before", "after", "difference", "difference_ci", "verdict", "errors", "cost_usd"]
    assert list(test["after"]) == ["n", "alpha", "alpha_ci", "kappa", "bias"]
    # the rewrite's meta-prompt and proposal are stored with the run
    assert dim["rewrite"]["proposal"]["prompt"] == "Score {output} strictly for {input}."
    assert by["rewrite"]["prompt"] == "Score {output} strictly for {input}."
    # no test item is ever shown as an example, nor in the meta-prompt
    test_ids = {int(t[1:]) for t in dim["test_items"]}
    judged_test = 0
    for body in server.requests:
        prompt = user_prompt(body)
        if "You improve the instructions" in system_prompt(body):
            assert not any(f"reason-of-q{i:02d}" in prompt for i in test_ids), "a test item is in the meta-prompt"
            continue
        shown = prompt.split("## Scores people gave", 1)[1] if "## Scores people gave" in prompt else ""
        assert not any(f"reason-of-q{i:02d}" in shown or f"Answer {i} has" in shown for i in test_ids)
        judged = OUTPUT.search(prompt)
        assert judged is not None
        judged_test += int(judged.group(1)) in test_ids
    # the chosen, on test only: the current's replies come from the judge cache (the earlier judge run)
    assert judged_test == len(test_ids)
    assert by["current"]["status"] == "done" and server.count == 4 * 28 + 1 + 12
    # --write: a minor bump with correction_examples 2, its provenance in the notes
    assert data["written"] == "align-test@1.1.0"
    new = s.rubrics.get_rubric("align-test@1.1.0")
    assert new.judge.correction_examples == 2
    text = s.rubrics.rubric_yaml("align-test@1.1.0")
    assert text.startswith("# Written by rubricate align from align-test@1.0.0.")
    assert "seed 0" in text and "28 dev / 12 test items" in text and "better" in text
    diff = CliRunner().invoke(app, ["rubric", "diff", REF, "align-test@1.1.0", "--db", db])
    assert diff.exit_code == 0 and "judge/review: judge or review settings changed" in diff.output, diff.output
    assert "version 1.0.0 → 1.1.0 is enough" in diff.output
    last = s.align.last_align_run(REF, "accuracy")
    assert last is not None and last.written_ref == "align-test@1.1.0" and stored(last.result)["chosen"] == "k2"


def test_a_judge_that_ignores_examples_is_no_better_and_nothing_is_written(
        db: str, server: LoopbackServer, tmp_path: Path) -> None:
    s = _setup(db, server, tmp_path)
    server.reset(default=Reply(content=ignores_examples))
    out = _align(db, server, "--write")
    assert out.exit_code == 0, out.output
    assert "no better than the current judge" in out.output
    assert "nothing registered" in out.output
    assert [v for i, v, _ in s.rubrics.list_rubrics() if i == "align-test"] == ["1.0.0"]
    last = s.align.last_align_run(REF, "accuracy")
    assert last is not None and stored(last.result)["test"]["verdict"] == "no better" and last.written_ref is None


def test_the_same_seed_gives_the_same_split_and_another_seed_another(
        db: str, server: LoopbackServer, tmp_path: Path) -> None:
    _setup(db, server, tmp_path)
    server.reset(default=Reply(content=follows_examples))
    runs = [json.loads(_align(db, server, "--format", "json", "--candidates", "current",
                              "--seed", seed).stdout)["dimensions"][0] for seed in ("4", "4", "5")]
    assert runs[0]["test_items"] == runs[1]["test_items"] and runs[0]["dev_items"] == runs[1]["dev_items"]
    assert runs[0]["test_items"] != runs[2]["test_items"]


def test_max_cost_stops_cleanly_and_writes_nothing(db: str, server: LoopbackServer, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    s = _setup(db, server, tmp_path)
    server.reset(default=Reply(content=follows_examples))
    # a model litellm has a price for, so the loopback's token counts cost money
    code, _, err = run_cli(["align", "--rubric", REF, "--model", "openai/gpt-4o-mini", "--api-base", server.url,
                            "--api-key", "k", "--retries", "0", "--max-cost", "0.00001", "--write", "--db", db], capsys)
    assert code == 1, err
    [line] = err.strip().splitlines()
    assert "--max-cost $1e-05 reached" in line and "nothing chosen or written" in line, line
    assert server.count < 5 * 28  # stopped long before every candidate's dev calls
    with s.db.read() as conn:
        from sqlalchemy import text as sql
        status = conn.execute(sql("SELECT status FROM align_run")).scalars().all()
    assert status == ["cost_cap"]
    assert [v for i, v, _ in s.rubrics.list_rubrics() if i == "align-test"] == ["1.0.0"]


def test_a_reply_that_does_not_parse_is_that_items_error(db: str, server: LoopbackServer, tmp_path: Path) -> None:
    _setup(db, server, tmp_path)

    def broken_for_q03(body: dict[str, object]) -> str:
        found = OUTPUT.search(user_prompt(body))
        if found and found.group(1) == "3":
            return "not json at all"
        return follows_examples(body)

    server.reset(default=Reply(content=broken_for_q03))
    out = _align(db, server, "--format", "json", "--candidates", "k2,k4")
    assert out.exit_code == 0, out.output
    [dim] = json.loads(out.stdout)["dimensions"]
    by = {c["name"]: c for c in dim["candidates"]}
    # (the current's replies come from the earlier judge run's cache: it answered q03 well)
    assert by["current"]["errors"] == 0
    if "q03" in dim["dev_items"]:
        assert by["k2"]["errors"] == by["k4"]["errors"] == 1
        assert by["k2"]["dev_n"] == len(dim["dev_items"]) - 1 and by["k2"]["dev_alpha"] == pytest.approx(1.0)
    else:
        assert dim["test"]["errors"] == {"before": 0, "after": 1}
        assert dim["test"]["n"] == len(dim["test_items"]) - 1
    assert dim["test"]["verdict"] == "better"


def test_dry_run_says_what_would_run_and_calls_nothing(db: str, server: LoopbackServer, tmp_path: Path) -> None:
    _setup(db, server, tmp_path)
    out = _align(db, server, "--dry-run", "--format", "json")
    assert out.exit_code == 0, out.output
    [plan] = json.loads(out.stdout)["dry_run"]
    assert list(plan) == ["dimension", "dev_items", "test_items", "candidates", "test_calls", "calls", "cost_usd"]
    assert list(plan["candidates"][0]) == ["name", "model", "calls", "cost_usd"]
    assert plan["dev_items"] == 28 and plan["test_items"] == 12
    assert [c["calls"] for c in plan["candidates"]] == [28] * 5
    assert plan["calls"] == 5 * 28 + 1 + 2 * 12
    assert server.count == 0


def test_other_models_and_more_samples_are_candidates_too(db: str, server: LoopbackServer, tmp_path: Path) -> None:
    _setup(db, server, tmp_path)
    server.reset(default=Reply(content=follows_examples))
    out = _align(db, server, "--model", "openai/judge-y", "--samples", "2", "--candidates", "current",
                 "--format", "json")
    assert out.exit_code == 0, out.output
    [dim] = json.loads(out.stdout)["dimensions"]
    by = {c["name"]: c for c in dim["candidates"]}
    assert set(by) == {"current", "model:openai/judge-y", "samples:2"}
    assert by["model:openai/judge-y"]["model"] == "openai/judge-y" and by["samples:2"]["samples"] == 2
    assert len({c["prompt_hash"] for c in dim["candidates"]}) == 3
    models = [body["model"] for body in server.requests]
    assert models.count("judge-y") == len(dim["dev_items"])  # judge-y judged dev once per item
    # two samples per dev item (the first is the current's, already cached by the earlier judge run)
    assert models.count("judge-x") == len(dim["dev_items"])
    assert all(c["dev_alpha"] is not None and c["status"] == "done" for c in dim["candidates"])


def test_a_hostile_proposal_is_shown_as_text(db: str, server: LoopbackServer, tmp_path: Path) -> None:
    _setup(db, server, tmp_path)

    def hostile(body: dict[str, object]) -> str:
        if "You improve the instructions" in system_prompt(body):
            return json.dumps({"prompt": "[bold red]Obey[/] \x1b[2J{output}", "rationale": "r"})
        return follows_examples(body)

    server.reset(default=Reply(content=hostile))
    out = _align(db, server, "--candidates", "rewrite")
    assert out.exit_code == 0, out.output
    assert "red]Obey[/]" in out.output and "␛[2J" in out.output and "\x1b" not in out.output


def test_the_test_phase_calls_through_fresh_clients(db: str, server: LoopbackServer, tmp_path: Path) -> None:
    """At concurrency 1 every phase queues on the client's slots: a client (and its semaphore)
    carried over from the dev phase's event loop into the test phase's would refuse to wait."""
    _setup(db, server, tmp_path)
    server.reset(default=Reply(content=follows_examples))
    # judge-y has judged nothing: the current candidate calls too, on dev and on test
    out = _align(db, server, "--candidates", "k2", "--concurrency", "1", "--format", "json", model="openai/judge-y")
    assert out.exit_code == 0, out.output
    [dim] = json.loads(out.stdout)["dimensions"]
    assert dim["chosen"] == "k2" and dim["test"]["verdict"] == "better"
    assert dim["test"]["errors"] == {"before": 0, "after": 0} and all(c["errors"] == 0 for c in dim["candidates"])
    assert server.count == 2 * len(dim["dev_items"]) + 2 * len(dim["test_items"])
