"""The judge: prompts, the litellm client (retries, parsing, cache, cost) and the runner that
scores items with every method a rubric names. Pure: the store reaches it only through the small
cache Protocol and the sink the caller passes in."""
