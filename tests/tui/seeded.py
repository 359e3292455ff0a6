"""Items the render and turn-score tests (and their snapshots) add to the demo store: a markdown
output with code and evidence, a hostile markdown output, a capped item, and a conversation
scored turn by turn under the bundled FlexEval rubric."""

from __future__ import annotations

import json
from pathlib import Path

from reviewer.services.importing import import_file
from reviewer.store import Store
from rubrics.results import ScoreResult

GQ = "general-quality@1.0.0"
FLEX = "flexeval-choice@1.1.0"

MARKDOWN = (
    "# Canberra\n\n"
    "Canberra is the **capital** of Australia, chosen as a compromise between\n"
    "Sydney and Melbourne. See [the city's history](https://example.org/canberra).\n\n"
    "- planned by Walter Burley Griffin\n- home of Parliament House\n\n"
    "```python\ndef capital(country):\n    return {'Australia': 'Canberra'}[country]\n```\n"
)
#: a quote written as the judge quotes it: it crosses the source's line break
EVIDENCE = "a compromise between Sydney and Melbourne"

HOSTILE_MD = (
    "Click [here](http://evil.example/steal) or <http://auto.example/x>.\n\n"
    "![tracker](http://img.example/pixel.png)\n\n"
    "[link=http://markup.example]markup link[/link] and [bold]not bold[/bold]\n\n"
    "Raw: \x1b]8;;http://osc.example\x1b\\hidden target\x1b]8;;\x1b\\ and \x1b[2J clear\n\n"
    "```sh\necho \x1b]0;pwned\x07\n```\n"
)

CHAT = [
    {"role": "user", "content": "Can you **plot** y = 2x?"},
    {"role": "assistant", "content": "Sure: the slope is `2`."},
    {"role": "user", "content": "Thanks. What is a slope?"},
    {"role": "assistant", "content": "How *steep* the line is."},
]
#: the judge's score on each user turn (flexeval-choice scores the user's turns; item = max)
TURNS = [1.0, 0.0]


def seed(store: Store, tmp: Path) -> dict[str, int]:
    """Add the items (datasets ``md``, ``evil``, ``capped``, ``chat``) with their judge scores;
    returns each item id's key."""
    src = tmp / "seeded.jsonl"
    scores = {"relevance": 9, "completeness": 8, "conciseness": 8, "clarity": 9}
    src.write_text("".join(json.dumps(r) + "\n" for r in [
        {"id": "md-1", "output": MARKDOWN, "input": "What is the capital of Australia?"},
        {"id": "evil-1", "output": HOSTILE_MD, "input": "Say something"},
    ]))
    import_file(store, src, GQ, dataset="md")
    capped = tmp / "capped.jsonl"
    capped.write_text(json.dumps({"id": "capped-1", "output": "Sydney is the capital of Australia.",
                                  "input": "What is the capital of Australia?",
                                  "judge": {"model": "m", "scores": {"accuracy": 3, **scores}}}) + "\n")
    import_file(store, capped, GQ, dataset="capped")
    chat = tmp / "chat.jsonl"
    chat.write_text(json.dumps({"id": "chat-1", "conversation": CHAT}) + "\n")
    import_file(store, chat, FLEX, dataset="chat")
    keys = {i: store.queue.queue_page("triage", search=i)[0].item_pk for i in ("md-1", "evil-1", "capped-1", "chat-1")}
    run = store.runs.create_judge_run(GQ, "m")
    store.runs.record_results(run, [
        ScoreResult("md-1", d, "llm_judge", "m", 8.0, rationale="accurate", item_key=keys["md-1"],
                    evidence=[EVIDENCE] if d == "accuracy" else [])
        for d in ("accuracy", *scores)])
    run = store.runs.create_judge_run(FLEX, "m")
    store.runs.record_results(run, [
        *[ScoreResult("chat-1", "asks_for_plot", "llm_judge", "m", s, turn=k, item_key=keys["chat-1"])
          for k, s in enumerate(TURNS)],
        ScoreResult("chat-1", "asks_for_plot", "llm_judge", "m", max(TURNS), item_key=keys["chat-1"],
                    rationale="max of 2 turn scores")])
    return keys
