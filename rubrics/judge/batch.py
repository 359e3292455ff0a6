"""Batch pricing's pure half: the requests a run would send, as a provider's batch JSONL, and a
batch's output read back as the replies live calls would have had.

A batch run is the live run made in rounds (:mod:`reviewer.services.judge_batch`). Each round
runs the judge pipeline with a :class:`BatchClient`: a request the judge cache holds is answered
from it (so cached items are not sent), one an earlier batch answered is answered with that reply,
and any other is kept for the next batch while its call fails, as a failed live call would. A
request that needs an earlier reply (a re-ask, a claim's check after the claims are drawn, a
``depends_on`` dimension) shows up in the round after that reply came. When a round wants nothing
new, the pipeline runs once more and its results are stored: the prompts, markers, parsing, sandbox
and storing are the live run's own code, so a batch stores what a live run would.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rubrics.judge.cache import KeyValueCache
from rubrics.judge.client import (
    ClientSettings,
    Completion,
    CostMeter,
    JudgeCallError,
    JudgeClient,
    import_litellm,
    read_completion,
)

#: Providers whose batch API takes OpenAI's JSONL (an OpenAI-compatible ``--api-base`` is "openai"),
#: and which document a batch at half the live price.
BATCH_PROVIDERS = ("openai",)
ENDPOINT = "/v1/chat/completions"
#: OpenAI's limits per batch: at most 50,000 requests and an input file of 200 MB.
MAX_REQUESTS = 50_000
MAX_BYTES = 200 * 1024 * 1024
#: How a request not answered yet fails its call in a round (the round's results are never stored).
NOT_YET = "sent in a batch: not answered yet"


@dataclass(frozen=True)
class Answer:
    """What a batch said to one request: the reply's body, or an error (neither: not yet)."""

    body: Mapping[str, Any] | None = None
    error: str | None = None


@dataclass(frozen=True)
class BatchPrice:
    """USD per token of a batch, and where the figure comes from."""

    input_per_token: float
    output_per_token: float
    source: str

    def cost(self, tokens_in: int, tokens_out: int) -> float:
        """The batch price of these tokens."""
        return tokens_in * self.input_per_token + tokens_out * self.output_per_token


def provider_model(model: str) -> tuple[str, str]:
    """The model's name as its provider knows it (the batch lines' ``model``) and the provider;
    a ValueError when litellm cannot tell or the provider has no batch API here."""
    try:
        name, provider, _, _ = import_litellm().get_llm_provider(model)
    except Exception as exc:
        raise ValueError(f"litellm does not know the provider of {model!r} ({str(exc).splitlines()[0][:120]})") from None
    if provider not in BATCH_PROVIDERS:
        raise ValueError(f"{model} is served by {provider}, which has no batch API here: --batch takes "
                         f"a model of {', '.join(BATCH_PROVIDERS)} (an OpenAI-compatible server: "
                         "openai/NAME with --api-base)")
    return str(name), str(provider)


def batch_price(model: str) -> BatchPrice | None:
    """litellm's batch price for the model when its cost map has one; else half the live price
    (the batch providers here document batches at 50 %); None when litellm knows no price."""
    try:
        info = import_litellm().get_model_info(model)
    except Exception:
        return None
    batch_in, batch_out = info.get("input_cost_per_token_batches"), info.get("output_cost_per_token_batches")
    if batch_in is not None and batch_out is not None:
        return BatchPrice(float(batch_in), float(batch_out), "litellm's batch price for this model")
    live_in, live_out = info.get("input_cost_per_token"), info.get("output_cost_per_token")
    if live_in is None or live_out is None:
        return None
    return BatchPrice(float(live_in) / 2, float(live_out) / 2,
                      "half the live price (the provider documents batches at 50 %)")


def batch_estimate(model: str, tokens_in: int, tokens_out: int) -> tuple[float | None, str]:
    """``--dry-run --batch``: the batch price of these tokens and where it comes from (None and
    why, when the model has no batch here or no known price)."""
    try:
        provider_model(model)
    except ValueError as exc:
        return None, f"no batch: {exc}"
    price = batch_price(model)
    if price is None:
        return None, "unknown (no price for this model)"
    return price.cost(tokens_in, tokens_out), price.source


def request_line(key: str, model_name: str, messages: list[dict[str, str]], params: Mapping[str, Any]) -> bytes:
    """One request of the batch's input file: its ``custom_id`` is its judge cache key."""
    body = {"model": model_name, "messages": messages, **params}
    line = {"custom_id": key, "method": "POST", "url": ENDPOINT, "body": body}
    return json.dumps(line, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


def input_files(wanted: Mapping[str, bytes], max_requests: int = MAX_REQUESTS,
                max_bytes: int = MAX_BYTES) -> list[tuple[list[str], bytes]]:
    """The request lines (by cache key) as input files within the provider's limits, each with
    the keys it carries (a round passing the limits is sent as several batches); a single request
    larger than a whole file is refused."""
    files: list[tuple[list[str], bytes]] = []
    keys: list[str] = []
    lines: list[bytes] = []
    size = 0
    for key, line in wanted.items():
        if len(line) > max_bytes:
            raise ValueError(f"one judge request is {len(line)} bytes, more than a batch file may hold "
                             f"({max_bytes}): judge these items live (without --batch)")
        if lines and (len(lines) >= max_requests or size + len(line) > max_bytes):
            files.append((keys, b"".join(lines)))
            keys, lines, size = [], [], 0
        keys.append(key)
        lines.append(line)
        size += len(line)
    if lines:
        files.append((keys, b"".join(lines)))
    return files


def _error_text(value: Any) -> str:
    """A provider's error object as one line (its message, its code)."""
    if isinstance(value, Mapping):
        inner = value.get("error", value)
        if isinstance(inner, Mapping):
            message, code = inner.get("message"), inner.get("code")
            text = " ".join(str(p) for p in (code, message) if p)
            if text:
                return " ".join(text.split())[:300]
    return " ".join(json.dumps(value, ensure_ascii=False, default=str).split())[:300]


def read_output(data: bytes) -> tuple[dict[str, Answer], int]:
    """A batch's output (or error) file: each request's answer by ``custom_id``, and how many
    lines could not be read (not JSON, no ``custom_id``): those requests stay unanswered and are
    their items' errors, never guessed at."""
    found: dict[str, Answer] = {}
    unreadable = 0
    for raw in data.split(b"\n"):
        if not raw.strip():
            continue
        try:
            line = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            unreadable += 1
            continue
        key = line.get("custom_id") if isinstance(line, dict) else None
        if not isinstance(key, str):
            unreadable += 1
            continue
        found[key] = _answer(line)
    return found, unreadable


def _answer(line: Mapping[str, Any]) -> Answer:
    if line.get("error"):
        return Answer(error=f"the batch answered with an error: {_error_text(line['error'])}")
    response = line.get("response")
    if not isinstance(response, Mapping):
        return Answer(error="the batch's output has no response for this request")
    status, body = response.get("status_code"), response.get("body")
    if status != 200:
        return Answer(error=f"the batch answered HTTP {status}: {_error_text(body)}")
    if not isinstance(body, Mapping):
        return Answer(error="the batch's reply to this request is not a JSON object")
    return Answer(body=body)


class BatchClient(JudgeClient):
    """A judge client whose replies come from a run's batches: every request neither the cache
    nor an earlier batch answers is kept in :attr:`wanted` (its batch line, by cache key) and its
    call fails; an answered one is that reply, or that request's error."""

    def __init__(self, settings: ClientSettings, answers: Mapping[str, Answer], price: BatchPrice | None,
                 cache: KeyValueCache | None = None, meter: CostMeter | None = None) -> None:
        super().__init__(settings, cache=cache, meter=meter)
        self.answers = answers
        self.price = price
        self.model_name, _ = provider_model(settings.model)
        #: the requests to send in the next batch: cache key → its line of the input file
        self.wanted: dict[str, bytes] = {}

    async def _answer(self, key: str, messages: list[dict[str, str]], params: dict[str, Any]) -> Completion:
        found = self.answers.get(key)
        if found is None:
            self.wanted.setdefault(key, request_line(key, self.model_name, messages, params))
            raise JudgeCallError(NOT_YET)
        if found.error is not None:
            raise JudgeCallError(found.error)
        if found.body is None:  # sent, its batch not read yet
            raise JudgeCallError(NOT_YET)
        return read_completion(found.body, self.meter, self.price.cost if self.price is not None else None)
