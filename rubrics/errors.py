"""Errors a user can cause with a rubric file; each prints as one line."""

from __future__ import annotations


class RubricError(ValueError):
    """A rubric that cannot be loaded or breaks a save-time rule.

    Prints as ``FILE:LINE: rule: message`` — the file, the line of the offending key, the rule's
    name and what to do about it.
    """

    #: Where in the rubric's data the problem is (set by the builder, which skips what lies under it).
    keypath: tuple[str | int, ...] = ()

    def __init__(self, path: str, line: int | None, rule: str, message: str) -> None:
        self.path = path
        self.line = line
        self.rule = rule
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line is not None else self.path
        return f"{where}: {self.rule}: {self.message}"


class RubricProblems(RubricError):
    """Every problem found in one rubric file, reported at once (one line each).

    Its own fields are the first problem's, so code that reads ``exc.rule`` keeps working;
    ``problems`` holds them all, in file order.
    """

    def __init__(self, problems: list[RubricError]) -> None:
        self.problems = sorted(problems, key=lambda p: (p.line is None, p.line or 0))
        first = self.problems[0]
        super().__init__(first.path, first.line, first.rule, first.message)

    def __str__(self) -> str:
        return "\n".join(RubricError.__str__(p) for p in self.problems)

    def lines(self) -> list[str]:
        """One ``FILE:LINE: rule: message`` line per problem."""
        return [RubricError.__str__(p) for p in self.problems]


def raise_all(problems: list[RubricError]) -> None:
    """Raise the one problem as itself, several as :class:`RubricProblems`; nothing if none."""
    if len(problems) == 1:
        raise problems[0]
    if problems:
        raise RubricProblems(problems)
