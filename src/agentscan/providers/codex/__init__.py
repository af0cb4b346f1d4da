"""The codex provider package; the class is in ``provider.py``."""
