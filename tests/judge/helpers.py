"""Small builders for rubrics and clients in judge tests, and the stored judge-test rubric: its
store fixtures (`db`, `store`) and run options (test modules import these, never one another)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reviewer.services import judging
from reviewer.services.importing import import_file
from reviewer.store import open_store
from rubrics.judge.cache import MemoryCache
from rubrics.judge.client import ClientSettings, CostMeter, JudgeClient
from rubrics.loader import load_rubric_file
from rubrics.methods.base import JudgeItem
from rubrics.schema import Anchor, Dimension, JudgeSettings, Rubric, Scale
from tests.judge.loopback import LoopbackServer, user_prompt
from tests.store.conftest import pg_schema_url


def dim(id: str = "accuracy", method: str = "llm_judge", weight: float = 1.0, **kw: Any) -> Dimension:
    scale = kw.pop("scale", Scale(1, 5))
    anchors = kw.pop("anchors", (Anchor(1, 2, "Poor", "wrong"), Anchor(3, 5, "Good", "right")))
    return Dimension(id=id, name=id.title(), description=f"How good the {id} is.", method=method,
                     weight=weight, threshold=60, scale=scale, anchors=anchors, **kw)


def rubric(*dims: Dimension, gates: tuple[str, ...] = (), **judge: Any) -> Rubric:
    return Rubric(id="t", version="1.0.0", name="T", owner="me", description="test", scale=Scale(1, 5),
                  dimensions=dims, safety_gates=gates, judge=JudgeSettings(**judge))


def client(server: LoopbackServer, model: str = "openai/judge-x", **kw: Any) -> JudgeClient:
    cache = kw.pop("cache", MemoryCache())
    meter = kw.pop("meter", CostMeter())
    concurrency = kw.pop("concurrency", 8)
    settings = ClientSettings(model=model, api_base=server.url, api_key="sk-test",
                              timeout=kw.pop("timeout", 5.0), retries=kw.pop("retries", 1), backoff=0.01, **kw)
    return JudgeClient(settings, cache=cache, meter=meter, concurrency=concurrency)


def item(id: str = "q1", output: str = "Paris is the capital of France.", **kw: Any) -> JudgeItem:
    return JudgeItem(id=id, output=output, input=kw.pop("input", "What is the capital of France?"), **kw)


def answer(score: Any, rationale: str = "fine", **extra: Any) -> str:
    return json.dumps({"score": score, "rationale": rationale, "evidence": [], "confidence": 0.9, **extra})


RUBRIC = """\
id: judge-test
version: 1.0.0
name: Judge test
owner: tests
description: Two judge dimensions and a rule.
scale: {min: 1, max: 5}
safety_gates: [pii_exposure]
dimensions:
  - id: accuracy
    name: Accuracy
    description: Factual correctness of the answer.
    method: llm_judge
    weight: 0.5
    threshold: 60
    prompt: Is {output} a correct answer to {input}?
    anchors:
      - {range: [1, 2], label: Wrong, description: Mostly wrong.}
      - {range: [3, 5], label: Right, description: Mostly right.}
  - id: brevity
    name: Brevity
    description: The answer stays under twenty words.
    method: deterministic
    weight: 0.5
    threshold: 60
    rule: {max_words: 20}
    anchors:
      - {range: [1, 2], label: Long, description: Too long.}
      - {range: [3, 5], label: Short, description: Short enough.}
"""


@pytest.fixture(params=["sqlite", "postgres"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The database URL: a SQLite file, and a fresh PostgreSQL schema when the server is there."""
    if request.param == "sqlite":
        yield str(tmp_path / "judge.db")
    else:
        yield from pg_schema_url()


@pytest.fixture
def store(db: str, tmp_path: Path) -> Any:
    return judge_store(db, tmp_path)


def judge_store(db: str, tmp_path: Path) -> Any:
    """A store at ``db`` with :data:`RUBRIC` and seven items (q0–q5 and "leak", which holds an SSN)."""
    path = tmp_path / "rubric.yaml"
    path.write_text(RUBRIC)
    s = open_store(db)
    s.rubrics.add_rubric(load_rubric_file(path), RUBRIC)
    items = tmp_path / "items.jsonl"
    rows = [{"id": f"q{i}", "input": f"Question {i}?", "output": f"Answer {i}."} for i in range(6)]
    rows.append({"id": "leak", "input": "Who?", "output": "Her SSN: 123-45-6789."})
    items.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    import_file(s, str(items), "judge-test@1.0.0")
    return s


def options(server: LoopbackServer, **kw: Any) -> judging.JudgeOptions:
    return judging.JudgeOptions(rubric_ref="judge-test@1.0.0", models=kw.pop("models", ["openai/judge-x"]),
                                api_base=server.url, api_key="sk-test", timeout=5, retries=1, **kw)


def well_behaved(body: dict[str, Any]) -> str:
    """A valid answer to whichever prompt the pipeline sent: the top of the scale."""
    prompt = user_prompt(body)
    if "List every atomic factual claim" in prompt:
        return json.dumps({"claims": ["Opened items can be returned within 14 days."]})
    if "Check each claim" in prompt:
        return json.dumps({"verdicts": [{"claim": "c", "verdict": "supported", "quote": "14 days"}]})
    if "opposing positions" in prompt:
        return json.dumps({"parity": 0.9, "rationale": "even", "evidence": []})
    choices = re.search(r"Answer with one of: (.+?)\.\n", prompt)
    if choices:
        first = choices.group(1).split(", ")[0]
        if "on the last line, write only one of" in prompt:  # FlexEval's reply style
            return f"Reasoning first.\n{first}"
        return json.dumps({"choice": first, "rationale": "r", "evidence": [], "confidence": 1})
    top = re.findall(r"Scale: ([\d.]+)–([\d.]+)", prompt)
    scores = {m.group(1): float(top[i][1]) for i, m in enumerate(re.finditer(r"\(id: ([\w-]+)\)", prompt))}
    if len(scores) > 1:  # a combined call
        return json.dumps({k: {"score": v, "rationale": "r", "evidence": [], "confidence": 1}
                           for k, v in scores.items()})
    return json.dumps({"score": float(top[0][1]), "rationale": "r", "evidence": [], "confidence": 1})
