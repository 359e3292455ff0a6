"""The judge tests' loopback server fixtures, for this folder's end-to-end tests."""

from tests.judge.conftest import _release_litellm, _server, server

__all__ = ["_release_litellm", "_server", "server"]
