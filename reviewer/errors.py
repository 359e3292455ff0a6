"""Errors a user can cause in the application; the CLI prints each as one line, exit 1."""

from __future__ import annotations


class UserError(Exception):
    """Bad input or a refused request: the message says what is wrong and what to do."""


# Refusals whose "what to do" names a command: the store says what is wrong, and the front ends
# add the command to run (reviewer.faults.explained), so the store never writes CLI text.
class NoLead(UserError):
    """A role given in a store with no lead yet: the first role must be ``lead``, bound to ``login``."""

    def __init__(self, login: str) -> None:
        self.login = login
        super().__init__(f"this store has no lead yet: the first role given must be lead (bound to your login {login})")


class MissingRole(UserError):
    """``reviewer`` does not hold ``role``, which the request needs."""

    def __init__(self, reviewer: str, role: str) -> None:
        self.reviewer, self.role = reviewer, role
        super().__init__(f"{reviewer} does not hold the {role} role")


class UnboundName(UserError):
    """``reviewer`` has scores (it came with an import) but is bound to no login: nobody signs with
    it until a lead binds it to its person."""

    def __init__(self, reviewer: str) -> None:
        self.reviewer = reviewer
        super().__init__(f"the name {reviewer} came with imported scores and is bound to no login")


class UnknownRubric(UserError):
    """``ref`` names neither a registered rubric version nor a bundled one."""

    def __init__(self, ref: str) -> None:
        self.ref = ref
        super().__init__(f"unknown rubric {ref}")


class BrokenStoredRubric(UserError):
    """A stored rubric version (``where``) that does not pass the rubric rules (``why``)."""

    def __init__(self, where: str, why: str) -> None:
        self.where = where
        super().__init__(f"{where}: does not pass the rubric rules ({why}); refusing to use it")


class NoDatabase(UserError):
    """A reading command's ``db`` holds no rubricate database (nothing was created there)."""

    def __init__(self, db: str) -> None:
        self.db = db
        super().__init__(f"{db}: no rubricate database there (a mistyped --db or $RUBRICATE_DB?); "
                         "nothing was created: give an existing database")


class StaleFlag(UserError):
    """A decision on safety flag ``flag``, raised on content the item no longer has."""

    def __init__(self, flag: int) -> None:
        self.flag = flag
        super().__init__(f"flag {flag} was raised on an earlier version of the item's content and no "
                         "longer applies; decide the flags of the current version")


#: How many bad lines a refusal lists before "... and N more".
MAX_ERRORS_SHOWN = 20


class FileErrors(Exception):
    """The lines of a file that are wrong; the message lists them, capped."""

    def __init__(self, errors: list[str]) -> None:
        self.errors = errors
        shown = errors[:MAX_ERRORS_SHOWN]
        more = f"\n... and {len(errors) - len(shown)} more" if len(errors) > len(shown) else ""
        super().__init__("\n".join(shown) + more)
