"""Shared pieces of the seed tests: a rubric answered as one flat reply, a FlexEval data block
(test modules import these, never one another)."""

from __future__ import annotations

import re

FLAT = """\
id: adr-flat
version: 1.0.0
name: ADR-016 flat
description: Three ADR-016 dimensions scored in one call, answered as ADR-016's flat object.
scale: {min: 1, max: 10}
judge: {mode: combined, reply: flat}
dimensions:
  - {use: accuracy, weight: 0.5}
  - {use: completeness, weight: 0.3}
  - {use: relevance, weight: 0.2}
owner: tests
"""


def data_block(prompt: str) -> str:
    """What the judge was shown as the turn ({content}): the sandboxed OUTPUT block."""
    m = re.search(r"<<<OUTPUT-(\w+)>>>\n(.*?)\n<<<END-OUTPUT-\1>>>", prompt, re.DOTALL)
    assert m is not None, prompt
    return m.group(2)
