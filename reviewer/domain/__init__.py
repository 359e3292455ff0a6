"""Pure rules over an item's stored rows (no SQL, no UI)."""
