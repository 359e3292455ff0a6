"""Policy gates from the wiki: medical advice without a disclaimer (:mod:`rubrics.safety.medical`)
and false confirmation (:mod:`rubrics.safety.confirmation`)."""

from __future__ import annotations

from rubrics.safety.confirmation import detect_false_confirmation
from rubrics.safety.medical import detect_medical_without_disclaimer

__all__ = ["detect_false_confirmation", "detect_medical_without_disclaimer"]
