"""Safety gates: deterministic, context-aware detectors whose hits cap the overall score and open
a flag for the safety queue (a check before any judge, never an LLM judge alone)."""

from rubrics.safety.gates import GATE_DETECTORS, Detector, check_gates

__all__ = ["GATE_DETECTORS", "Detector", "check_gates"]
