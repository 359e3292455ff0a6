"""The demo dataset (demonstration data, invented) and the command that builds a database from it."""
