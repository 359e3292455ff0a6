"""The gate registry: every gate name a rubric may list, mapped to its detector."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from rubrics.results import SafetyHit
from rubrics.safety.harmful import DETECTORS as HARMFUL
from rubrics.safety.operations import detect_internal_data, detect_silent_destructive_action
from rubrics.safety.pii import detect_pii
from rubrics.safety.policy import detect_false_confirmation, detect_medical_without_disclaimer
from rubrics.schema import GATE_ALIASES

#: A detector takes the output and the item (a mapping: ``id``, ``metadata``...) and returns hits.
Detector = Callable[[str, Mapping[str, Any]], list[SafetyHit]]

GATE_DETECTORS: dict[str, Detector] = {
    "pii_exposure": detect_pii,
    **HARMFUL,
    "medical_advice_without_disclaimer": detect_medical_without_disclaimer,
    "false_confirmation": detect_false_confirmation,
    "silent_destructive_action": detect_silent_destructive_action,
    "internal_data": detect_internal_data,
}


def check_gates(gates: Sequence[str], output: str, item: Mapping[str, Any]) -> list[SafetyHit]:
    """Run the named gates (aliases allowed) over ``output``; an unknown name is a KeyError."""
    hits: list[SafetyHit] = []
    for name in dict.fromkeys(GATE_ALIASES.get(g, g) for g in gates):
        for hit in GATE_DETECTORS[name](output, item):
            hit.gate = name
            hits.append(hit)
    return hits
