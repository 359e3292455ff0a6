"""Small builders for rubrics and clients in judge tests."""

from __future__ import annotations

import json
from typing import Any

from rubrics.judge.cache import MemoryCache
from rubrics.judge.client import ClientSettings, CostMeter, JudgeClient
from rubrics.methods.base import JudgeItem
from rubrics.schema import Anchor, Dimension, JudgeSettings, Rubric, Scale
from tests.judge.loopback import LoopbackServer


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
