"""The rubricate application: the store, the command line and the review TUI."""
