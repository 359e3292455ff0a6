"""The services layer: what the CLI and the TUI ask for, worked out over the store and the pure
packages (calibration reports and estimates, judge runs, run reports, item-file imports, and the
text renderings both front ends print). Nothing here imports the CLI or the TUI; the store and
the item-file readers sit below (see the import-linter contracts in ``pyproject.toml``)."""
