"""The calibration and run-report page: one self-contained HTML file, charts drawn as inline SVG
by matplotlib (imported only when a page is written)."""
