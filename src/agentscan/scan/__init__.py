"""Scanning: the Scanner, the persistent index, token reports, doctor, liveness."""
