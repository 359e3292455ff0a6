"""``rubricate rubric ...``: validate, list, show, diff, import-flexeval."""

from __future__ import annotations

from reviewer.cli import rubric_app  # noqa: F401
