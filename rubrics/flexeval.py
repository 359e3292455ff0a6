"""Import FlexEval rubric files (rubric name → ``prompt`` + ``choice_scores``) as canonical YAML.

Each FlexEval rubric becomes one ``llm_judge`` dimension whose ``choices`` map the judge's
answer to a score; the scale runs from the lowest to the highest choice score, with the distinct
scores as its levels and one anchor per choice. Weights are shared equally.
"""

from __future__ import annotations

import re
from typing import Any

from rubrics.errors import RubricError, raise_all
from rubrics.loader import dump_yaml, load_rubric_text
from rubrics.yamlsource import parse_yaml


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_") or "rubric"


def import_flexeval(text: str, source: str, rubric_id: str = "flexeval-import") -> str:
    """Canonical YAML for a FlexEval rubric file; raises :class:`RubricError` on bad input."""
    located = parse_yaml(text, source)
    raise_all(located.problems)  # duplicate keys, keys that are not text: never last-wins
    data = located.data
    if not isinstance(data, dict) or not data:
        raise RubricError(source, 1, "wrong-type", "a FlexEval file maps rubric names to {prompt, choice_scores}")
    dims: list[dict[str, Any]] = []
    n = len(data)
    for name, body in data.items():
        line = located.line(str(name))
        if not isinstance(body, dict) or "prompt" not in body or not isinstance(body.get("choice_scores"), dict):
            raise RubricError(source, line, "flexeval-shape", f"{name!r} needs 'prompt' and a 'choice_scores' mapping")
        choices = body["choice_scores"]
        if not choices or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in choices.values()):
            raise RubricError(source, line, "flexeval-shape", f"{name!r}: every choice score must be a number")
        scores = sorted({float(v) for v in choices.values()})
        if len(scores) < 2:
            raise RubricError(source, line, "flexeval-shape", f"{name!r}: choices need at least two different scores")
        anchors = [{"score": s, "label": " / ".join(str(k) for k, v in choices.items() if float(v) == s)}
                   for s in scores]
        dims.append({
            "id": _slug(str(name)), "name": str(name),
            "description": f"FlexEval rubric {name!r}: the judge answers one of {', '.join(map(str, choices))}.",
            "method": "llm_judge", "weight": round(1.0 / n, 6), "threshold": 50,
            "scale": {"min": scores[0], "max": scores[-1], "levels": scores},
            "prompt": str(body["prompt"]), "choices": {str(k): float(v) for k, v in choices.items()},
            "anchors": anchors,
        })
    dims[0]["weight"] = round(1.0 - sum(d["weight"] for d in dims[1:]), 6)
    out = {"id": rubric_id, "version": "1.0.0", "name": f"Imported from {source}", "owner": "",
           "description": "Converted from a FlexEval rubric file by rubricate rubric import-flexeval.",
           "scale": dims[0]["scale"], "dimensions": dims}
    canonical = dump_yaml(out)
    load_rubric_text(canonical, f"{source} (converted)")  # refuse to write what would not load
    return canonical
