"""The claude provider package; the class is in ``provider.py``."""
