"""The provider toolkit: roots, and reading provider files safely (read-only, bounded).

Providers use it; so do ``doctor`` and the hooks store, which read the same
kinds of files.  It imports nothing from the layers after it.
"""
