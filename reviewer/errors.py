"""Errors a user can cause in the application; the CLI prints each as one line, exit 1."""

from __future__ import annotations


class UserError(Exception):
    """Bad input or a refused request: the message says what is wrong and what to do."""
