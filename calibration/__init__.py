"""Calibration: agreement between raters, on plain arrays. Pure: no UI, no database."""
