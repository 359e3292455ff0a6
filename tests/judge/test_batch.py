"""``rubricate judge --batch`` against the loopback server's batch API, on SQLite and PostgreSQL:
a batch stores what a live run stores, another process goes on with it, each request's error is
its item's, a second ``--batch-status`` stores nothing, and ``--dry-run --batch`` shows the price."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import AbstractContextManager, ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from reviewer.cli import _register, app
from reviewer.errors import UserError
from reviewer.services import judge_batch, judging
from reviewer.services.importing import import_file
from reviewer.store import open_store
from rubrics.judge.batch import input_files, read_output, request_line
from rubrics.judge.client import NO_MESSAGE
from rubrics.loader import load_rubric_file
from rubrics.methods.semantic import load_model
from tests.cli import run_cli
from tests.judge.batchserver import BatchServer
from tests.judge.helpers import RUBRIC, answer, judge_store
from tests.judge.loopback import Reply, user_prompt
from tests.store.conftest import pg_schema_url

ROOT = Path(__file__).resolve().parents[2]
REF = "judge-test@1.0.0"


def _content(body: dict[str, Any]) -> str:
    """Item q2's reply never parses (nor does its re-ask's); the others score by their number."""
    prompt = user_prompt(body)
    if "Answer 2." in prompt:
        return "I would rather not say."
    found = re.search(r"Answer (\d+)\.", prompt)
    return answer(1 + int(found.group(1)) % 5 if found else 3, rationale="scripted")


def _envelope(body: dict[str, Any]) -> dict[str, Any] | None:
    """Item q4's reply has no message at all."""
    return {"choices": []} if "Answer 4." in user_prompt(body) else None


SCRIPT = Reply(_content, envelope=_envelope)


@pytest.fixture(scope="module")
def _server() -> Iterator[BatchServer]:
    server = BatchServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def server(_server: BatchServer) -> BatchServer:
    """The batch server, its record empty, replying by :data:`SCRIPT`, no request refused."""
    _server.reset(default=SCRIPT)
    _server.refuse = None
    return _server


@pytest.fixture(params=["sqlite", "postgres"])
def dbs(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[list[str]]:
    """Two fresh databases on one backend (one judged live, one by batch)."""
    with ExitStack() as stack:
        if request.param == "sqlite":
            yield [str(tmp_path / "a.db"), str(tmp_path / "b.db")]
        else:
            yield [stack.enter_context(_schema()) for _ in range(2)]


def _schema() -> AbstractContextManager[str]:
    return contextmanager(pg_schema_url)()


def _options(server: BatchServer) -> judging.JudgeOptions:
    return judging.JudgeOptions(rubric_ref=REF, models=["openai/judge-x"], api_base=server.url, api_key="sk-test",
                                timeout=5, retries=1)


def _stored(store: Any) -> list[tuple[Any, ...]]:
    """Every judge score as (item, dimension, score, error, raw reply, rationale), in order."""
    with store.db.read() as conn:
        return [tuple(r) for r in conn.exec_driver_sql(
            "SELECT i.item_id, s.dimension, s.score, s.error, s.raw_reply, s.rationale FROM judge_score s "
            "JOIN item i ON i.pk = s.item_pk ORDER BY i.item_id, s.dimension").all()]


def test_a_batch_stores_what_a_live_run_stores(server: BatchServer, dbs: list[str], tmp_path: Path) -> None:
    live_store, batch_store = (judge_store(db, tmp_path) for db in dbs)
    [live] = judging.run(live_store, _options(server))
    live_calls = server.count
    server.reset(default=SCRIPT)
    state = judge_batch.start(batch_store, _options(server), interval=0.01, wait=True)
    assert state.status == "done" and state.totals is not None
    # the same rows, errors and raw replies included: q2's unusable reply after its re-ask, q4's empty one
    assert _stored(batch_store) == _stored(live_store)
    errors = {(item, dim): error for item, dim, _, error, _, _ in _stored(batch_store) if error}
    assert set(errors) == {("q2", "accuracy"), ("q4", "accuracy")}
    assert errors[("q2", "accuracy")].startswith("unusable reply after one re-ask")
    assert NO_MESSAGE in errors[("q4", "accuracy")]
    # the re-ask went in a second round, once the first reply was in: as many requests as live calls
    assert [(b.round, b.requests, b.status) for b in state.batches] == [(1, 7, "stored"), (2, 1, "stored")]
    assert server.count == live_calls == 8
    assert state.totals.as_dict()["errors"] == live.totals.as_dict()["errors"] == 2
    [flag] = batch_store.safety.open_flags(REF)
    assert flag.item_id == "leak"
    # a store pass that stopped half-way leaves the run open; the next one stores only what is missing
    batch_store.batches.set_run_status(state.run_id, judge_batch.OPEN)
    resumed = judge_batch.advance(batch_store, state.run_id, "sk-test", interval=0.01, wait=True)
    assert resumed.status == "done" and resumed.totals is not None and resumed.totals.items == 0
    assert _stored(batch_store) == _stored(live_store) and server.count == live_calls
    # the replies went into the judge cache as a live run's do: a live rerun asks again only what
    # a rerun after the live run asks again (q4's reply, which had nothing to read, was not kept)
    reruns = []
    for store in (live_store, batch_store):
        server.reset(default=SCRIPT)
        [again] = judging.run(store, _options(server))
        reruns.append((server.count, again.totals.cached))
    assert reruns[0] == reruns[1] == (1, 6)


def test_a_batch_costs_the_batch_price_and_sends_only_what_the_cache_lacks(server: BatchServer, dbs: list[str],
                                                                          tmp_path: Path) -> None:
    store = judge_store(dbs[0], tmp_path)
    options = _options(server)
    options.models = ["openai/gpt-4o-mini"]  # priced: litellm's cost map has its batch price
    first = judge_batch.start(store, options, interval=0.01, wait=True)
    with store.db.read() as conn:
        costs = dict(conn.exec_driver_sql(
            "SELECT i.item_id, s.cost_usd FROM judge_score s JOIN item i ON i.pk = s.item_pk "
            f"WHERE s.run_pk = {int(first.run_id)} AND s.dimension = 'accuracy'").all())
    # the loopback server counts 100 tokens in and 20 out a reply (q2's with its re-ask: two)
    one = 100 * 7.5e-08 + 20 * 3e-07
    assert costs["q1"] == pytest.approx(one) and costs["q2"] == pytest.approx(2 * one)
    assert first.totals is not None and first.totals.cost_usd == pytest.approx(7 * one, abs=1e-6)
    server.reset(default=SCRIPT)
    again = judge_batch.start(store, options, interval=0.01, wait=True)
    # only q4's request is sent again: its reply had nothing to read, so the cache never kept it
    assert [(b.round, b.requests) for b in again.batches] == [(1, 1)] and server.count == 1
    assert "Answer 4." in user_prompt(server.requests[0])
    assert again.totals is not None and again.totals.cached == 6 and again.totals.cost_usd == 0.0


SEMANTIC_RUBRIC = RUBRIC.replace("description: Two judge dimensions and a rule.", "description: A judge, a rule, a cosine.") + """\
  - {id: sim, name: Similarity, description: Close to the reference., method: semantic_similarity,
     weight: 0, threshold: 60, anchors: [{range: [1, 2], label: Far, description: Far.},
                                         {range: [3, 5], label: Near, description: Near.}]}
"""


@pytest.mark.slow
def test_a_batch_run_encodes_each_text_once_over_its_rounds(server: BatchServer, dbs: list[str], tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "rubric.yaml"
    path.write_text(SEMANTIC_RUBRIC)
    store = open_store(dbs[0])
    store.rubrics.add_rubric(load_rubric_file(path), SEMANTIC_RUBRIC)
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps({"id": f"q{i}", "input": f"Question {i}?", "output": f"Answer {i}.",
                                         "reference": f"The answer is {i}."}) + "\n" for i in range(6)))
    import_file(store, str(items), REF)
    model = load_model()
    encode = model.encode
    seen: list[str] = []

    def counted(texts: list[str], **kw: Any) -> Any:
        seen.extend(texts)
        return encode(texts, **kw)

    monkeypatch.setattr(model, "encode", counted)
    state = judge_batch.start(store, _options(server), interval=0.01, wait=True)
    # two rounds (q2's re-ask in the second) and the storing pass: the twelve texts encoded once
    assert state.status == "done" and state.totals is not None and len(state.batches) == 2
    assert sorted(seen) == sorted({*(f"Answer {i}." for i in range(6)), *(f"The answer is {i}." for i in range(6))})
    assert state.totals.embedded == 12
    assert len([r for r in _stored(store) if r[1] == "sim" and r[2] is not None]) == 6
    seen.clear()
    server.reset(default=SCRIPT)
    [again] = judging.run(store, _options(server))  # the vectors were stored: a rerun encodes nothing
    assert seen == [] and again.totals.embedded == 0


def test_batch_refuses_what_it_cannot_honour_in_one_line(server: BatchServer, dbs: list[str], tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    db = dbs[0]
    judge_store(db, tmp_path)
    base = ["judge", "--rubric", REF, "--api-base", server.url, "--api-key", "sk-test", "--batch", "--db", db]
    for extra, said in ((["--model", "openai/judge-x", "--max-cost", "1"], "--max-cost is for live runs"),
                        (["--model", "openai/a", "--model", "openai/b"], "--batch judges with one --model"),
                        (["--model", "anthropic/claude-3-haiku-20240307"], "which has no batch API here")):
        code, out, err = run_cli(base + extra, capsys)
        assert code == 1 and out == "" and len(err.splitlines()) == 1 and said in err, err
    assert server.count == 0 and server.batches == {}


def _rubricate(db: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    return subprocess.run([sys.executable, "-m", "reviewer", *args, "--db", db], env=env, capture_output=True,
                          text=True, timeout=300, check=False)


def test_another_process_goes_on_and_a_second_look_stores_nothing(server: BatchServer, dbs: list[str],
                                                                  tmp_path: Path) -> None:
    db = dbs[0]
    store = judge_store(db, tmp_path)
    _register()
    started = CliRunner().invoke(app, ["judge", "--rubric", REF, "--model", "openai/judge-x", "--api-base", server.url,
                                       "--api-key", "sk-test", "--batch", "--no-wait", "--db", db])
    assert started.exit_code == 0, started.output
    said = " ".join(started.output.split())
    assert "run 1: round 1 batch batch_1 (7 requests) validating" in said
    assert "go on with rubricate judge --batch-status 1" in said
    assert _stored(store) == [] and server.count == 0  # nothing answered, nothing stored yet
    done = _rubricate(db, "judge", "--batch-status", "1", "--interval", "0.01", "--api-key", "sk-test")
    assert done.returncode == 0, done.stderr
    assert done.stderr == "", done.stderr  # no traceback from litellm's clients at exit
    out = " ".join(done.stdout.split())
    assert "round 2 batch batch_2 (1 request) stored" in out and "run 1 · openai/judge-x · done" in out
    assert "7 items, 2 errors" in out, out
    rows = _stored(store)
    assert len(rows) == 14 and server.count == 8
    again = _rubricate(db, "judge", "--batch-status", "1", "--interval", "0.01", "--api-key", "sk-test")
    assert again.returncode == 0, again.stderr
    assert "run 1 is already stored (done): nothing more to store" in " ".join(again.stdout.split())
    assert _stored(store) == rows and server.count == 8 and len(server.batches) == 2
    report = store.runs.judge_run_report(1)
    assert report["status"] == "done" and report["dimensions"]["accuracy"]["scores"] == 7


def test_a_provider_down_is_one_line_and_the_run_goes_on_after(server: BatchServer, dbs: list[str],
                                                                tmp_path: Path) -> None:
    store = judge_store(dbs[0], tmp_path)
    sent = judge_batch.start(store, _options(server), interval=0.01, wait=False)
    assert sent.status == judge_batch.OPEN and [b.status for b in sent.batches] == ["validating"]
    server.down = True
    with pytest.raises(UserError) as caught:
        judge_batch.advance(store, sent.run_id, "sk-test", interval=0.01, wait=True)
    said = str(caught.value)
    assert len(said.splitlines()) == 1 and "503" in said, said
    assert said.endswith(f"go on with rubricate judge --batch-status {sent.run_id}")
    assert store.batches.run_of(sent.run_id).status == judge_batch.OPEN and _stored(store) == []
    server.down = False
    done = judge_batch.advance(store, sent.run_id, "sk-test", interval=0.01, wait=True)
    assert done.status == "done" and len(_stored(store)) == 14


def test_a_request_the_batch_refused_is_its_items_error(server: BatchServer, dbs: list[str], tmp_path: Path) -> None:
    store = judge_store(dbs[0], tmp_path)
    server.refuse = lambda body: "this request is too long" if "Answer 1." in user_prompt(body) else None
    state = judge_batch.start(store, _options(server), interval=0.01, wait=True)
    assert state.status == "done"
    errors = {(item, dim): error for item, dim, _, error, _, _ in _stored(store) if error}
    assert errors[("q1", "accuracy")] == "the batch answered HTTP 400: this request is too long"
    assert ("q3", "accuracy") not in errors  # the other items scored
    assert store.items.item_view(1).judge["brevity"][-1].score is not None


def test_dry_run_shows_the_batch_price(server: BatchServer, dbs: list[str], tmp_path: Path) -> None:
    db = dbs[0]
    judge_store(db, tmp_path)
    _register()

    def plan(model: str) -> dict[str, Any]:
        out = CliRunner().invoke(app, ["judge", "--rubric", REF, "--model", model, "--dry-run", "--batch",
                                       "--format", "json", "--db", db])
        assert out.exit_code == 0, out.output
        return dict(json.loads(out.stdout)[model])

    mini = plan("openai/gpt-4o-mini")  # litellm's cost map has its batch prices
    assert mini["batch_price"] == "litellm's batch price for this model"
    assert mini["batch_cost_usd"] == pytest.approx(mini["tokens_in"] * 7.5e-08 + mini["tokens_out"] * 3e-07)
    old = plan("openai/gpt-3.5-turbo")  # a live price only: OpenAI documents batches at half of it
    assert old["batch_price"].startswith("half the live price")
    assert old["batch_cost_usd"] == pytest.approx(old["cost_usd"] / 2)
    other = plan("anthropic/claude-3-haiku-20240307")
    assert other["batch_cost_usd"] is None and "no batch" in other["batch_price"]
    text = CliRunner().invoke(app, ["judge", "--rubric", REF, "--model", "openai/gpt-4o-mini", "--dry-run",
                                    "--batch", "--db", db])
    assert f"as a batch ${mini['batch_cost_usd']:.4f} (litellm's batch price for this model)" in \
        " ".join(text.output.split())
    assert server.count == 0


def test_batch_files_keep_the_providers_limits_and_outputs_are_read_strictly() -> None:
    wanted = {f"judge:{i}": request_line(f"judge:{i}", "m", [{"role": "user", "content": "x" * 10}], {})
              for i in range(5)}
    files = input_files(wanted, max_requests=2)
    assert [keys for keys, _ in files] == [["judge:0", "judge:1"], ["judge:2", "judge:3"], ["judge:4"]]
    size = len(wanted["judge:0"])
    assert [len(keys) for keys, _ in input_files(wanted, max_bytes=size * 3)] == [3, 2]
    with pytest.raises(ValueError, match="more than a batch file may hold"):
        input_files(wanted, max_bytes=size - 1)
    found, unreadable = read_output(
        b'{"custom_id": "a", "response": {"status_code": 200, "body": {"choices": []}}}\n'
        b'not json\n{"no": "id"}\n\xff\xfe\n'
        b'{"custom_id": "b", "response": {"status_code": 500, "body": {"error": {"message": "boom"}}}}\n'
        b'{"custom_id": "c", "error": {"code": "expired", "message": "too late"}}\n')
    assert unreadable == 3
    assert found["a"].body == {"choices": []} and found["a"].error is None
    assert found["b"].error == "the batch answered HTTP 500: boom"
    assert found["c"].error == "the batch answered with an error: expired too late"
