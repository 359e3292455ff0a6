"""Rubrics: what a rubric is and how one output is scored against it. Pure: no UI, no database."""
