"""Issue 12's "Why" bullets, through the command line only — the contract that stays put when the
code under it changes. So the same file runs against any checkout: set ``RUBRICATE_WHY_SOURCE`` to a
checkout of the code before the domain layer (commit 3bf25e7) and every test here fails, printing
what that code said; unset, it runs against this repository and passes. (The bullets that only
the TUI or the store's API can show — a lead's adjudication, two people's sign-offs, agree's
level, coverage, the calibration screen — are in ``test_why.py``.)

Real parts: a SQLite file, the CLI in a child process, litellm over HTTP against the loopback
server in this process."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.judge.loopback import LoopbackServer, Reply, user_prompt

ROOT = Path(__file__).resolve().parents[2]
SOURCE = Path(os.environ.get("RUBRICATE_WHY_SOURCE") or ROOT)
REF = "fold-test@1.0.0"
TOP = {"accuracy": {"score": 5}, "clarity": {"score": 5}, "style": {"score": 5}}


def cli(*args: str, db: Path, ok: tuple[int, ...] = (0,)) -> str:
    """Run ``rubricate ARGS --db DB`` on the code under test; its standard output."""
    env = {**os.environ, "PYTHONPATH": str(SOURCE), "LITELLM_LOCAL_MODEL_COST_MAP": "True",
           "RUBRICATE_DB": str(db)}
    done = subprocess.run([sys.executable, "-m", "reviewer", *args, "--db", str(db)], env=env, cwd=db.parent,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode in ok, f"rubricate {' '.join(args)}: {done.stderr.strip()[-400:]}"
    return done.stdout


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A SQLite store with the fold-test rubric (less the ``review:`` block older code refused)."""
    text = (Path(__file__).parent / "fold-test.yaml").read_text(encoding="utf-8")
    rubric = tmp_path / "fold-test.yaml"
    rubric.write_text(re.sub(r"(?m)^review:.*\n", "", text), encoding="utf-8")
    path = tmp_path / "store.db"
    cli("rubric", "add", str(rubric), db=path)
    return path


def load(db: Path, tmp: Path, items: list[dict[str, Any]], *extra: str) -> None:
    path = tmp / f"items-{len(list(tmp.iterdir()))}.jsonl"
    path.write_text("".join(json.dumps(i) + "\n" for i in items), encoding="utf-8")
    cli("import", str(path), "--rubric", REF, *extra, db=db)


def export(db: Path, *extra: str) -> dict[tuple[str, str], dict[str, Any]]:
    rows = [json.loads(line) for line in cli("export", "--rubric", REF, *extra, db=db).splitlines() if line]
    return {(r["id"], r.get("dataset") or ""): r for r in rows}


def test_a_judge_error_on_a_weighted_dimension_leaves_the_item_incomplete(db: Path, tmp_path: Path) -> None:
    """3bf25e7 printed overall 1.0, band High, passed: clarity dropped out and the rest renormalised."""
    judge = {**TOP, "clarity": {"error": "reply was not JSON", "raw_reply": "{oops"}}
    load(db, tmp_path, [{"id": "err", "output": "x", "judge": {"model": "m1", "scores": judge},
                         "human": [{"reviewer": "ana", "scores": {"empathy": 5}}]}])
    row = export(db)[("err", "")]
    assert (row["overall"], row["band"], row["passed"]) == (None, None, False), row


def test_a_human_only_dimension_nobody_scored_leaves_the_item_incomplete(db: Path, tmp_path: Path) -> None:
    """3bf25e7 printed overall 1.0, High, passed without the empathy score only people give."""
    load(db, tmp_path, [{"id": "wait", "output": "x", "judge": {"model": "m1", "scores": TOP}}])
    row = export(db)[("wait", "")]
    assert (row["overall"], row["band"], row["passed"]) == (None, None, False), row


def test_new_content_does_not_keep_the_old_contents_scores(db: Path, tmp_path: Path) -> None:
    """3bf25e7 kept the human 5/5 on accuracy after the output was replaced by a wrong answer."""
    item = {"id": "cap", "output": "Paris is the capital of France.", "judge": {"model": "m1", "scores": TOP},
            "human": [{"reviewer": "ana", "scores": {"accuracy": 5, "empathy": 5}}]}
    load(db, tmp_path, [item])
    assert export(db)[("cap", "")]["dimensions"]["accuracy"]["effective"] == 5
    load(db, tmp_path, [{"id": "cap", "output": "Paris is the capital of Germany."}], "--update")
    dims = export(db)[("cap", "")]["dimensions"]
    assert dims["accuracy"].get("effective") is None and not dims["accuracy"].get("human"), dims["accuracy"]


def test_run_report_ranks_the_overall_it_prints(db: Path, tmp_path: Path) -> None:
    """3bf25e7 ranked the judge's unweighted raw mean (C > B > A) against the weighted, capped
    overall (C > A > B): Kendall's tau 1/3 for one ranking compared with itself."""
    scores = {"A": (5, 3, 3), "B": (2, 5, 5), "C": (5, 4, 4)}
    load(db, tmp_path, [
        {"id": k, "group": "g", "output": k.lower(), "human": [{"reviewer": "ana", "scores": {"empathy": 3}}],
         "judge": {"model": "m1", "scores": {d: {"score": s} for d, s in zip(("accuracy", "clarity", "style"), v, strict=True)}}}
        for k, v in scores.items()])
    rep = json.loads(cli("report", "--rubric", REF, "--format", "json", db=db))
    assert rep["group_rank_agreement"]["mean_kendall"] == pytest.approx(1.0), rep["group_rank_agreement"]


@pytest.fixture
def servers() -> Iterator[tuple[LoopbackServer, LoopbackServer]]:
    """Two OpenAI-compatible servers on 127.0.0.1: one says 5 to a good answer and 1 to anything
    else; the other says 2 to everything."""
    def by_output(body: dict[str, Any]) -> str:
        score = 5 if "a good answer" in user_prompt(body) else 1
        return json.dumps({"score": score, "rationale": "as scripted", "evidence": [], "confidence": 0.9})

    first, second = LoopbackServer(), LoopbackServer()
    first.default = Reply(by_output)
    second.default = Reply(json.dumps({"score": 2, "rationale": "other server", "evidence": [], "confidence": 0.9}))
    first.start()
    second.start()
    yield first, second
    first.stop()
    second.stop()


def judge(db: Path, server: LoopbackServer, *extra: str, ok: tuple[int, ...] = (0,)) -> None:
    cli("judge", "--rubric", REF, "--model", "openai/judge-x", "--api-base", server.url,
        "--api-key", "sk-test", "--concurrency", "2", "--retries", "0", *extra, db=db, ok=ok)


def test_one_id_in_two_datasets_gets_each_its_own_verdict(
        db: Path, tmp_path: Path, servers: tuple[LoopbackServer, LoopbackServer]) -> None:
    """3bf25e7 stored dataset one's verdict on dataset two's item (results keyed by item id), and
    ``--only-missing`` asked again on every run."""
    good, _ = servers
    load(db, tmp_path, [{"id": "same", "output": "a good answer"}], "--dataset", "one")
    load(db, tmp_path, [{"id": "same", "output": "a poor answer"}], "--dataset", "two")
    judge(db, good)
    rows = export(db)
    assert rows[("same", "one")]["dimensions"]["accuracy"]["judge"] == 5
    assert rows[("same", "two")]["dimensions"]["accuracy"]["judge"] == 1
    asked = len(good.requests)
    judge(db, good, "--only-missing", ok=(0, 1))  # 1: "nothing to do" (issue 16)
    assert len(good.requests) == asked


def test_the_judge_cache_tells_two_servers_apart(
        db: Path, tmp_path: Path, servers: tuple[LoopbackServer, LoopbackServer]) -> None:
    """3bf25e7 keyed the reply cache without the API base: the second server was never asked and
    its items kept the first server's 5."""
    first, second = servers
    load(db, tmp_path, [{"id": "one", "output": "a good answer"}])
    judge(db, first)
    judge(db, second)
    assert second.requests, "the second server was never asked: its replies came from the first's cache"
    assert export(db)[("one", "")]["dimensions"]["accuracy"]["judge"] == 2
