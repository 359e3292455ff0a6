"""``python -m reviewer`` runs the command line."""

from reviewer.cli import run

run()
