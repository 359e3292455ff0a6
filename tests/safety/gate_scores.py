"""Precision and recall of a gate's rules on a phrase set (shared by the test and the benchmark)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rubrics.safety import check_gates
from tests.safety.gate_phrases import FALSE_CONFIRMATION, MEDICAL_ADVICE

#: The precision and recall each gate must reach on its phrase set (the test and the benchmark).
TARGET = 0.95


@dataclass
class GateScore:
    gate: str
    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0
    misses: list[str] = field(default_factory=list)
    false_alarms: list[str] = field(default_factory=list)

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def n(self) -> int:
        return self.tp + self.fp + self.fn + self.tn


def score_gate(gate: str, phrases: list[tuple[str, bool, dict[str, Any]]]) -> GateScore:
    out = GateScore(gate)
    for i, (text, positive, metadata) in enumerate(phrases):
        fired = bool(check_gates([gate], text, {"id": f"p{i}", "metadata": metadata}))
        if positive and fired:
            out.tp += 1
        elif positive:
            out.fn += 1
            out.misses.append(text)
        elif fired:
            out.fp += 1
            out.false_alarms.append(text)
        else:
            out.tn += 1
    return out


def all_scores() -> list[GateScore]:
    return [score_gate("false_confirmation", FALSE_CONFIRMATION),
            score_gate("medical_advice_without_disclaimer", [(t, p, {}) for t, p in MEDICAL_ADVICE])]
