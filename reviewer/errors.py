"""Errors a user can cause in the application; the CLI prints each as one line, exit 1."""

from __future__ import annotations


class UserError(Exception):
    """Bad input or a refused request: the message says what is wrong and what to do."""


#: How many bad lines a refusal lists before "... and N more".
MAX_ERRORS_SHOWN = 20


class FileErrors(Exception):
    """The lines of a file that are wrong; the message lists them, capped."""

    def __init__(self, errors: list[str]) -> None:
        self.errors = errors
        shown = errors[:MAX_ERRORS_SHOWN]
        more = f"\n... and {len(errors) - len(shown)} more" if len(errors) > len(shown) else ""
        super().__init__("\n".join(shown) + more)
