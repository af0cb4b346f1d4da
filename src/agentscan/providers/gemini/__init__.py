"""The gemini provider package; the class is in ``provider.py``."""
