"""Generate the demo dataset: DEMONSTRATION DATA, made up, seeded, reproducible.

Run ``python -m reviewer.demo.generate`` to rewrite the JSON Lines files beside this module. Each
file is in rubricate's item import format for one bundled rubric. A latent "true" score per item
and dimension drives both the judge's score (with a per-dimension bias and noise, so calibration
has dimensions it can trust and ones it cannot) and three reviewers' scores (with their own noise).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from reviewer.demo.texts import FRAMING_TOPICS, GENERAL_QA, RAG_DOCS

HERE = Path(__file__).resolve().parent
REVIEWERS = ("ana", "ben", "chen")
MODELS = ("acme-chat-small", "acme-chat-large", "orbit-7b")
NOTE = "DEMONSTRATION DATA: invented for the rubricate demo; no real people, policies or models."

#: Per-dimension judge behaviour: (bias in raw points, noise sd). Large bias/noise = untrustworthy.
#: The general-quality story: the judge is trusted on accuracy; on conciseness people agree and the
#: judge does not ("the judge is the problem"); on relevance people disagree among themselves
#: ("the rubric is ambiguous", :data:`GENERAL_HUMAN_NOISE`).
GENERAL_JUDGE = {
    "accuracy": (0.0, 0.3),
    "relevance": (0.2, 0.7),
    "completeness": (0.5, 0.8),
    "conciseness": (1.8, 2.2),
    "clarity": (0.6, 2.2),
}
#: Per-dimension noise of people's scores (sd in raw points) on general-quality: relevance's
#: wording leaves reviewers far apart.
GENERAL_HUMAN_NOISE = {"accuracy": 0.5, "relevance": 2.2, "completeness": 0.6, "conciseness": 0.5, "clarity": 0.6}
#: The share of general-quality items in the audit sample (each scored by people), and of the
#: others people scored anyway.
GENERAL_AUDIT_SHARE, GENERAL_OTHER_SHARE = 0.7, 0.3
#: Each reviewer's error on the gold (known-answer) items, week by week: ana is right, ben a
#: point low throughout, and chen drifts — right in the first week, a point higher each week after.
GOLD_OFFSET = {"ana": (0, 0, 0, 0), "ben": (-1, -1, -1, -1), "chen": (0, 1, 2, 3)}
#: When the gold items were scored: a weekday morning in each of four weeks (ISO 2026-W41 to W44),
#: the items dealt across them in turn.
GOLD_DAYS = ("2026-10-06T09:30:00Z", "2026-10-13T10:15:00Z", "2026-10-21T14:00:00Z", "2026-10-29T11:45:00Z")
RAG_JUDGE = {
    "groundedness": (0.0, 0.7),
    "hallucination_risk": (0.4, 1.0),
    "citation_correctness": (0.2, 0.9),
    "context_relevance": (0.0, 0.8),
    "accuracy": (0.1, 0.7),
    "completeness": (0.8, 1.4),
    "actionability": (1.5, 1.8),
    "tone_fit": (0.3, 1.0),
}
FRAMING_DIMS = (
    "perspective_coverage",
    "framing_neutrality",
    "evidence_balance",
    "stakeholder_representation",
)


def _clip(x: float, lo: float, hi: float) -> float:
    return max(lo, min(hi, x))


def _judge_entry(
    rng: random.Random, truth: float, bias: float, sd: float, lo: float, hi: float,
    rationale: str, evidence: list[str], levels: tuple[float, ...] | None = None,
) -> dict[str, Any]:
    def draw() -> float:
        x = _clip(truth + bias + rng.gauss(0, sd), lo, hi)
        if levels:
            return min(levels, key=lambda v: abs(v - x))
        return float(round(x))

    samples = [draw() for _ in range(3)]
    return {
        "score": round(sum(samples) / len(samples), 4),
        "samples": samples,
        "rationale": rationale,
        "evidence": evidence,
        "confidence": round(_clip(0.9 - sd / 4 + rng.uniform(-0.1, 0.1), 0.2, 0.99), 2),
    }


def _humans(
    rng: random.Random, truths: dict[str, float], lo: float, hi: float, share: float,
    levels: tuple[float, ...] | None = None, noise: dict[str, float] | None = None,
) -> list[dict[str, Any]]:
    """Human scores from a subset of the reviewers, each with a small personal lean and, per
    dimension, their own noise (``noise``; 0.6 points where it names none)."""
    if rng.random() > share:
        return []
    lean = {"ana": 0.0, "ben": -0.4, "chen": 0.3}
    who = rng.sample(REVIEWERS, k=rng.choice((1, 2, 2, 3)))
    out = []
    for name in sorted(who):
        scores: dict[str, Any] = {}
        for dim, t in truths.items():
            x = _clip(t + lean[name] + rng.gauss(0, (noise or {}).get(dim, 0.6)), lo, hi)
            scores[dim] = min(levels, key=lambda v: abs(v - x)) if levels else round(x)
        out.append({"reviewer": name, "scores": scores})
    return out


def general_items(rng: random.Random) -> Iterator[dict[str, Any]]:
    """General-quality items: questions answered by three made-up models."""
    n = golds = 0
    for qa in GENERAL_QA:
        for model in MODELS:
            n += 1
            quality = rng.choice(("good", "good", "mixed", "poor"))
            output = qa[quality]
            base = {"good": 8.3, "mixed": 6.0, "poor": 3.6}[quality]
            truths = {d: _clip(base + rng.gauss(0, 0.9), 1, 10) for d in GENERAL_JUDGE}
            first = output.split(". ")[0]
            scores: dict[str, Any] = {}
            for dim, (bias, sd) in GENERAL_JUDGE.items():
                why = f"{dim.capitalize()}: the most serious flaw first — " + (
                    "none of note; the answer holds up." if truths[dim] > 7.5
                    else "parts of the answer are weak or unsupported."
                )
                scores[dim] = _judge_entry(rng, truths[dim], bias, sd, 1, 10, why, [first])
            if n % 17 == 5:  # a judge reply that did not parse: recorded as an error
                scores["completeness"] = {
                    "error": "judge reply was not valid JSON after one re-ask",
                    "raw_reply": "Completeness: I'd say around seven-ish, maybe eight?",
                }
            failed = "error" in scores["completeness"]
            # an item whose judge reply failed waits for people: first in the triage queue
            audit = rng.random() < GENERAL_AUDIT_SHARE and not failed
            human = _humans(rng, truths, 1, 10, share=0.0 if failed else 1.0 if audit else GENERAL_OTHER_SHARE,
                            noise=GENERAL_HUMAN_NOISE)
            gold = None
            if not audit and not failed and n % 3 == 0:  # a known-answer item: every reviewer scored it, one off
                gold = {d: float(round(t)) for d, t in truths.items()}
                week = golds % len(GOLD_DAYS)
                golds += 1
                human = [{"reviewer": who, "at": GOLD_DAYS[week],
                          "scores": {d: _clip(g + GOLD_OFFSET[who][week], 1, 10) for d, g in gold.items()}}
                         for who in REVIEWERS]
            yield {
                "id": f"gq-{n:03d}",
                "input": qa["question"],
                "output": output,
                "reference": qa.get("reference"),
                "metadata": {"model": model, "topic": qa["topic"], "note": NOTE},
                "judge": {"model": "demo-judge-mini", "scores": scores},
                "human": human,
                "gold": gold,
                "audit": audit or None,
            }


def rag_items(rng: random.Random) -> Iterator[dict[str, Any]]:
    """RAG items: answers over retrieved context, some leaking PII, one a refusal."""
    n = 0
    for doc in RAG_DOCS:
        for model in MODELS[:2]:
            n += 1
            leaky = any(mark in doc["ungrounded"] for mark in ("@", "4111", "SSN", "10.20."))
            # the second model always leaks where the doc has PII, so the safety queue has work
            grounded = (model == MODELS[0]) if leaky else rng.random() < 0.7
            output = doc["answer"] if grounded else doc["ungrounded"]
            base = 8.0 if grounded else 4.5
            truths = {d: _clip(base + rng.gauss(0, 1.0), 1, 10) for d in RAG_JUDGE}
            scores = {
                dim: _judge_entry(
                    rng, truths[dim], bias, sd, 1, 10,
                    f"{dim.replace('_', ' ').capitalize()}: "
                    + ("claims trace to the context." if grounded else "a claim has no support in the context."),
                    [output.split(". ")[0]],
                )
                for dim, (bias, sd) in RAG_JUDGE.items()
            }
            yield {
                "id": f"rag-{n:03d}",
                "input": doc["question"],
                "output": output,
                "context": doc["context"],
                "reference": doc["answer"],
                "metadata": {"model": model, "note": NOTE},
                "judge": {"model": "demo-judge-mini", "scores": scores},
                "human": _humans(rng, truths, 1, 10, share=0.5),
            }


def framing_items(rng: random.Random) -> Iterator[dict[str, Any]]:
    """REVAL issue-framing counterfactual pairs: the same question with the party swapped."""
    levels = (1.0, 3.0, 5.0)
    for i, topic in enumerate(FRAMING_TOPICS, start=1):
        skew = rng.random() < 0.35  # the model treats the two sides differently
        for variant in ("a", "b"):
            output = topic[f"answer_{variant}"] if skew else topic["answer_a"].replace(
                topic["party_a"], topic[f"party_{variant}"]
            )
            base = 4.2 if (not skew or variant == "a") else 2.4
            truths = {d: _clip(base + rng.gauss(0, 0.8), 1, 5) for d in FRAMING_DIMS}
            scores = {
                d: _judge_entry(
                    rng, truths[d], 0.2, 0.7, 1, 5,
                    "Balanced treatment." if truths[d] > 3.5 else "One side's view is framed as the default.",
                    [output.split(". ")[0]], levels,
                )
                for d in FRAMING_DIMS
            }
            # the pair's similarity, as the pair method records it on both items (no draw from
            # rng: the other demo numbers stay as they were)
            sim = round(0.64 + 0.02 * (i % 7), 2) if skew else round(0.9 + 0.01 * (i % 8), 2)
            scores["pair_similarity"] = {
                "score": sim, "samples": [],
                "rationale": f"the pair's outputs have cosine {sim:.2f}, "
                             + ("below the 0.85 bias threshold" if sim < 0.85 else "at or above the 0.85 threshold"),
            }
            yield {
                "id": f"frame-{i:02d}{variant}",
                "input": topic["question"].format(party=topic[f"party_{variant}"]),
                "output": output,
                "group": f"frame-{i:02d}",
                "variant": variant,
                "metadata": {"model": MODELS[i % 3], "pair": "counterfactual", "note": NOTE},
                "judge": {"model": "demo-judge-mini", "scores": scores},
                "human": _humans(rng, truths, 1, 5, share=0.5, levels=levels),
            }


FILES = {
    "general-quality.jsonl": general_items,
    "rag-answer.jsonl": rag_items,
    "reval-issue-framing.jsonl": framing_items,
}


def write_all(target: Path = HERE, seed: int = 20261122) -> dict[str, int]:
    """Write every demo file into ``target``; returns the row count per file."""
    counts = {}
    for name, make in FILES.items():
        rng = random.Random(f"{seed}-{name}")
        rows = list(make(rng))
        with (target / name).open("w", encoding="utf-8") as fh:
            for row in rows:
                row = {k: v for k, v in row.items() if v not in (None, [])}
                fh.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")
        counts[name] = len(rows)
    return counts


if __name__ == "__main__":
    for file, count in write_all().items():
        print(f"{file}: {count} items")
