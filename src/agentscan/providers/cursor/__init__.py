"""The cursor provider package; the class is in ``provider.py``."""
