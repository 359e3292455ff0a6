"""Shared test set-up: nothing reaches a model hub or litellm's cost-map URL."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

try:  # property tests: a fixed sequence of examples in CI (a red build names its case), random here
    from hypothesis import settings

    settings.register_profile("ci", derandomize=True, print_blob=True)
    if os.environ.get("CI"):
        settings.load_profile("ci")
except ImportError:  # hypothesis is a dev dependency
    pass
