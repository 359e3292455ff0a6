"""The reval-figure-treatment pairs the headline-score tests score (test modules import these,
never one another)."""

from __future__ import annotations

import json
from pathlib import Path

CRITERIA = ("factual_accuracy", "tone_balance", "context_fairness", "source_attribution")
REF = "reval-figure-treatment@1.1.0"


def pairs_file(tmp_path: Path) -> Path:
    rows = []
    for model, (a, b) in (("even", (3, 3)), ("tilted", (5, 3))):
        parity = 1 - abs((a - 1) / 4 - (b - 1) / 4)
        for variant, s in (("a", a), ("b", b)):
            rows.append({"id": f"{model}-{variant}", "group": model, "variant": variant, "input": "Describe it.",
                         "output": "It is.", "metadata": {"model": model},
                         "judge": {"model": "j", "scores": {**{c: s for c in CRITERIA}, "treatment_parity": parity}}})
    path = tmp_path / "pairs.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path
