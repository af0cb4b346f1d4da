"""Session indexes for cron: JSON Lines, CSV and SQLite exports.

Modules, in the order data flows through them::

    rows.py     sessions and usage days flattened into export rows
    files.py    JSON Lines and CSV, written atomically (temp file, fsync, rename)
    sqlite.py   the SQLite export: upsert in one transaction, versioned migrations
    redact.py   ``--redact``: text hashed, secrets masked (also used by list/show)
    run.py      ``run_export``: choose rows, take the output's lock, write

A scheduled job must be safe to overlap and must never leave a half-written
file.  JSON Lines and CSV are written to a temp file in the output's
directory, fsynced, then renamed over the output in one atomic step.  The
SQLite export is updated in place by upsert inside one transaction, so other
readers (Datasette, DuckDB) always see a consistent database; sessions whose
files disappeared get ``gone_at`` and are never deleted.  Overlapping runs
serialise on a lock file next to the output (``filelock``).
"""
