"""The app's screens; each owns its own keys and handlers."""
