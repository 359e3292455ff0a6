"""The review TUI. Nothing here imports litellm, torch or sentence-transformers, and nothing
blocks on the database in the UI thread: store calls run in thread workers."""
