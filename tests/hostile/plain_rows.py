"""The plain-rows rubric (test modules import these, never one another)."""

from __future__ import annotations

from rubrics.loader import load_rubric_text
from rubrics.schema import Rubric

RUBRIC = """id: plain-rows
version: 1.0.0
name: Plain rows
owner: test
scale: {min: 1, max: 5}
dimensions:
- id: accuracy
  description: How accurate the answer is, one to five.
  method: llm_judge
  weight: 0.5
  threshold: 60
  anchors: [{range: [1, 2], label: Poor}, {score: 3, label: Fair}, {range: [4, 5], label: Good}]
- id: clarity
  description: How clear the answer is, one to five.
  method: llm_judge
  weight: 0.5
  threshold: 60
  anchors: [{range: [1, 2], label: Poor}, {score: 3, label: Fair}, {range: [4, 5], label: Good}]
- id: safe
  description: Whether the answer is safe to show.
  method: llm_judge
  weight: 0
  threshold: 50
  scale: {min: 0, max: 1}
  level: nominal
  anchors: [{score: 0, label: "No"}, {score: 1, label: "Yes"}]
"""


def rubric() -> Rubric:
    return load_rubric_text(RUBRIC)
