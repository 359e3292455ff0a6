"""The hostile suite: table-driven cases, each naming what it proves and showing the failure
without its guard (issue 13). Shared strings and checks live in :mod:`tests.hostile.harness`."""
