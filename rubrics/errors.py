"""Errors a user can cause with a rubric file; each prints as one line."""

from __future__ import annotations


class RubricError(ValueError):
    """A rubric that cannot be loaded or breaks a save-time rule.

    Prints as ``FILE:LINE: rule: message`` — the file, the line of the offending key, the rule's
    name and what to do about it.
    """

    def __init__(self, path: str, line: int | None, rule: str, message: str) -> None:
        self.path = path
        self.line = line
        self.rule = rule
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line is not None else self.path
        return f"{where}: {self.rule}: {self.message}"
