"""The loopback judge server with OpenAI's batch API beside its chat endpoint.

Serves ``POST /v1/files`` (a multipart upload), ``GET /v1/files/{id}/content``, ``POST /v1/batches``
and ``GET /v1/batches/{id}``. A batch's status moves one step on each poll (by default
``validating`` → ``in_progress`` → ``completed``); when it completes, each request line of its input
file is sent to this server's own ``/v1/chat/completions``, so a batch answers with exactly the
replies (scripted or default) a live call would get, and every request is recorded as a live one
is. A reply with status 200 goes to the output file; any other to the error file, as OpenAI does.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

import aiohttp
from aiohttp import web

from tests.judge.loopback import LoopbackServer, Reply


class BatchServer(LoopbackServer):
    """The loopback server, its batches and files."""

    def __init__(self) -> None:
        super().__init__()
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        #: The statuses a batch answers its polls with, one step a poll (the last one stays).
        self.steps: tuple[str, ...] = ("validating", "in_progress", "completed")
        self.polls: dict[str, int] = {}
        #: A request this returns a message for is refused in the batch (HTTP 400 in the error
        #: file) without reaching the chat endpoint.
        self.refuse: Callable[[dict[str, Any]], str | None] | None = None
        #: While set, every poll of a batch is answered 503 (the provider down).
        self.down = False

    def reset(self, *replies: Reply, default: Reply | None = None) -> None:
        """Forget recorded requests, files and batches, and script the next replies."""
        super().reset(*replies, default=default)
        self.down = False
        self.files.clear()
        self.batches.clear()
        self.polls.clear()

    def _file(self, data: bytes, name: str, purpose: str) -> dict[str, Any]:
        file_id = f"file-{len(self.files) + 1}"
        self.files[file_id] = data
        return {"id": file_id, "object": "file", "bytes": len(data), "created_at": int(time.time()),
                "filename": name, "purpose": purpose, "status": "processed"}

    async def _upload(self, request: web.Request) -> web.Response:
        form = await request.post()
        upload = form["file"]
        if not isinstance(upload, web.FileField):
            return web.json_response({"error": {"message": "no file"}}, status=400)
        return web.json_response(self._file(upload.file.read(), upload.filename, str(form.get("purpose"))))

    async def _content(self, request: web.Request) -> web.Response:
        data = self.files.get(request.match_info["file_id"])
        if data is None:
            return web.json_response({"error": {"message": "no such file"}}, status=404)
        return web.Response(body=data, content_type="application/octet-stream")

    async def _create(self, request: web.Request) -> web.Response:
        asked = await request.json()
        if asked.get("input_file_id") not in self.files:
            return web.json_response({"error": {"message": "no such input file"}}, status=400)
        batch_id = f"batch_{len(self.batches) + 1}"
        self.batches[batch_id] = {
            "id": batch_id, "object": "batch", "endpoint": asked["endpoint"], "errors": None,
            "input_file_id": asked["input_file_id"], "completion_window": asked["completion_window"],
            "status": self.steps[0], "output_file_id": None, "error_file_id": None,
            "created_at": int(time.time()), "metadata": asked.get("metadata"),
            "request_counts": {"total": 0, "completed": 0, "failed": 0},
        }
        self.polls[batch_id] = 0
        return web.json_response(self.batches[batch_id])

    async def _retrieve(self, request: web.Request) -> web.Response:
        if self.down:
            return web.json_response({"error": {"message": "scripted 503", "type": "server_error"}}, status=503)
        batch_id = request.match_info["batch_id"]
        batch = self.batches.get(batch_id)
        if batch is None:
            return web.json_response({"error": {"message": "no such batch"}}, status=404)
        self.polls[batch_id] += 1
        status = self.steps[min(self.polls[batch_id] - 1, len(self.steps) - 1)]
        if status == "completed" and batch["output_file_id"] is None:
            await self._answer(batch)
        batch["status"] = status
        return web.json_response(batch)

    async def _answer(self, batch: dict[str, Any]) -> None:
        """Each request of the batch through the chat endpoint, into its output or error file."""
        out: list[bytes] = []
        failed: list[bytes] = []
        lines = [json.loads(line) for line in self.files[batch["input_file_id"]].splitlines() if line.strip()]
        async with aiohttp.ClientSession() as session:
            for n, line in enumerate(lines):
                refused = self.refuse(line["body"]) if self.refuse is not None else None
                if refused is not None:
                    status: int = 400
                    body: Any = {"error": {"message": refused, "type": "invalid_request_error", "code": None}}
                else:
                    async with session.post(f"{self.url}/chat/completions", json=line["body"]) as reply:
                        status, text = reply.status, await reply.text()
                    try:
                        body = json.loads(text)
                    except ValueError:
                        body = text
                answer = {"id": f"batch_req_{n}", "custom_id": line["custom_id"],
                          "response": {"status_code": status, "request_id": f"req_{n}", "body": body},
                          "error": None}
                (out if status == 200 else failed).append(json.dumps(answer).encode() + b"\n")
        batch["output_file_id"] = self._file(b"".join(out), "output.jsonl", "batch_output")["id"]
        if failed:
            batch["error_file_id"] = self._file(b"".join(failed), "errors.jsonl", "batch_output")["id"]
        batch["request_counts"] = {"total": len(lines), "completed": len(out), "failed": len(failed)}

    def routes(self, app: web.Application) -> None:
        """The chat endpoint, files and batches."""
        super().routes(app)
        app.router.add_post("/v1/files", self._upload)
        app.router.add_get("/v1/files/{file_id}/content", self._content)
        app.router.add_post("/v1/batches", self._create)
        app.router.add_get("/v1/batches/{batch_id}", self._retrieve)
