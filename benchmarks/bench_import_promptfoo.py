"""Import of 100,000 promptfoo results (4 assertions each) against the native import of the same
rows, on SQLite: target within 1.5× the native import. Prints both times and the ratio.

The native file is the promptfoo file converted by the adapter and written as JSON Lines, so both
imports write exactly the same items and scores; the promptfoo time includes reading and
converting the results file."""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import Any

from reviewer.services.importing import import_file, import_opened, open_source
from reviewer.store import open_store
from rubrics.draft import draft_rubric
from rubrics.loader import load_rubric_text

N = 100_000
METRICS = ("helpfulness", "accuracy", "tone", "concision")
TARGET = 1.5
ROUNDS = 2


def result(i: int) -> dict[str, Any]:
    """One result as ``promptfoo eval -o`` writes it: 4 llm-rubric assertions with reasons."""
    comps = [{"pass": (i + k) % 3 != 0, "score": round(((i + k) % 11) / 10, 1), "reason": f"reason {k} for {i}",
              "assertion": {"type": "llm-rubric", "value": f"The answer is good on {m}", "metric": m}}
             for k, m in enumerate(METRICS)]
    return {"id": f"r{i:06d}", "promptIdx": 0, "testIdx": i, "testCase": {"vars": {"q": f"question {i}"}},
            "promptId": "p1", "provider": {"id": "openai:gpt-4o-mini", "label": ""},
            "prompt": {"raw": f"Answer: question {i}", "label": "p1"}, "vars": {"q": f"question {i}"},
            "response": {"output": f"answer number {i}"}, "success": True, "score": 0.5, "latencyMs": 100,
            "gradingResult": {"pass": True, "score": 0.5, "reason": "ok", "componentResults": comps},
            "namedScores": {}, "cost": 0.0, "failureReason": 0}


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "results.json"
        src.write_text(json.dumps({"evalId": "bench", "results": {"version": 3, "timestamp": "2026-01-01",
                                                                  "results": [result(i) for i in range(N)],
                                                                  "prompts": [], "stats": {}},
                                   "config": {"defaultTest": {"options": {"provider": "openai:gpt-4o"}}}}))
        opened = open_source(src, "promptfoo")
        assert opened.converted is not None
        text = draft_rubric(list(opened.converted.dimensions.values()), "bench", "bench", "results.json")
        rubric = load_rubric_text(text)
        native = Path(tmp) / "items.jsonl"
        with native.open("w") as fh:
            for _, record in opened.converted.records:
                fh.write(json.dumps(record) + "\n")
        del opened

        native_s, promptfoo_s = [], []
        for round_ in range(ROUNDS):  # alternated, each the best of ROUNDS: the machine's load varies
            a = open_store(str(Path(tmp) / f"native{round_}.db"))
            a.rubrics.add_rubric(rubric, text)
            t = time.perf_counter()
            s1 = import_file(a, native, rubric.ref)
            native_s.append(time.perf_counter() - t)
            a.close()
            b = open_store(str(Path(tmp) / f"promptfoo{round_}.db"))
            b.rubrics.add_rubric(rubric, text)
            t = time.perf_counter()
            s2 = import_opened(b, open_source(src, "promptfoo"), rubric.ref)
            promptfoo_s.append(time.perf_counter() - t)
            b.close()
            assert (s1.inserted, s1.judge_scores) == (s2.inserted, s2.judge_scores) == (N, N * len(METRICS))
        ratio = min(promptfoo_s) / min(native_s)
        print(f"native import of {N:,} rows × {len(METRICS)} judge scores: {min(native_s):.2f} s "
              f"(best of {ROUNDS}: {', '.join(f'{x:.2f}' for x in native_s)}; reader {s1.reader})")
        print(f"promptfoo import of the same {N:,} results, reading and converting included: {min(promptfoo_s):.2f} s "
              f"(best of {ROUNDS}: {', '.join(f'{x:.2f}' for x in promptfoo_s)}; reader {s2.reader})")
        print(f"ratio {ratio:.2f} target ≤ {TARGET}: {'PASS' if ratio <= TARGET else 'FAIL'}")

if __name__ == "__main__":
    main()
