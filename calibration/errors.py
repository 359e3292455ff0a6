"""Errors a user can cause when asking for agreement figures; each prints as one line."""

from __future__ import annotations


class CalibrationError(ValueError):
    """A request that cannot be answered (an unknown group-by field, fewer than two raters...)."""
