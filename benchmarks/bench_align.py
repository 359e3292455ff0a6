"""``rubricate align`` against plain ``judge`` calls, on a server that takes 200 ms a reply.

N labelled audit items (default 1,000; people's scores with reasons, a first judge run so that
corrections exist) are aligned with the five default candidates (current, k2, k4, k8, rewrite)
at the judge's concurrency (8). The align's time (split, examples, every candidate on dev, the
rewrite's proposal, current and chosen on test, figures) is set beside a plain judge run of as
many calls as the align made (the current candidate's replies come from the judge cache, so its
calls are not made again), on a fresh SQLite store, same server, same concurrency. The issue asks
for align ≤ 1.1 × the plain judge.

Run: .venv/bin/python benchmarks/bench_align.py [--items N] [--delay SECONDS]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from reviewer.services import align, judging  # noqa: E402
from reviewer.services.importing import import_file  # noqa: E402
from reviewer.store import open_store  # noqa: E402
from rubrics.loader import load_rubric_text  # noqa: E402
from tests.judge.helpers import RUBRIC  # noqa: E402
from tests.judge.loopback import GOOD, LoopbackServer, Reply, system_prompt  # noqa: E402

MODEL = "openai/judge-x"
CONCURRENCY = 8
REF = "judge-test@1.0.0"


def reply(body: dict[str, Any]) -> str:
    """A proposal for the rewrite's meta-prompt; the usual judgement otherwise."""
    if "You improve the instructions" in system_prompt(body):
        return json.dumps({"prompt": "Is {output} a correct and complete answer to {input}?", "rationale": "r"})
    return GOOD


def store_with(tmp: Path, name: str, n: int) -> Any:
    s = open_store(str(tmp / f"{name}.db"))
    s.rubrics.add_rubric(load_rubric_text(RUBRIC, "bench.yaml"), RUBRIC)
    items = tmp / f"{name}.jsonl"
    items.write_text("".join(json.dumps({"id": f"q{i}", "input": f"Question {i}?", "output": f"Answer {i}."}) + "\n"
                             for i in range(n)))
    import_file(s, str(items), REF)
    return s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--delay", type=float, default=0.2)
    args = parser.parse_args()
    server = LoopbackServer().start()
    server.reset(default=Reply(content=reply, delay=args.delay))
    options = judging.JudgeOptions(rubric_ref=REF, models=[MODEL], api_base=server.url, api_key="k",
                                   concurrency=CONCURRENCY)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            s = store_with(Path(tmp), "align", args.items)
            s.queue.create_audit_sample(REF, args.items, seed=1)
            judging.run(s, options)  # the judge says 4 everywhere; people differ: corrections
            for r in s.runs.items_for_judging(REF):
                s.scores.add_human_score(r["pk"], "accuracy", "ana", 1 + int(r["id"][1:]) % 5, reason="because",
                                  sample="audit")
            server.reset(default=Reply(content=reply, delay=args.delay))
            started = time.perf_counter()
            [result] = align.run(s, align.AlignOptions(rubric_ref=REF, models=[MODEL], api_base=server.url,
                                                       api_key="k", concurrency=CONCURRENCY))
            align_s = time.perf_counter() - started
            calls = server.count

            plain = store_with(Path(tmp), "plain", calls)
            server.reset(default=Reply(content=reply, delay=args.delay))
            started = time.perf_counter()
            judging.run(plain, options)
            judge_s = time.perf_counter() - started
            judge_calls = server.count
    finally:
        server.stop()
    print(f"align  : {args.items} labelled items, {len(result['candidates'])} candidates, {calls} calls, "
          f"{align_s:6.1f} s (chosen {result['chosen']}, {result['test']['verdict']})")
    print(f"judge  : {judge_calls} calls, {judge_s:6.1f} s  (server {args.delay * 1000:.0f} ms a reply, "
          f"concurrency {CONCURRENCY})")
    ratio = align_s / judge_s
    print(f"align / judge: {ratio:.3f}  (target <= 1.1: {'met' if ratio <= 1.1 else 'NOT met'})")


if __name__ == "__main__":
    main()
