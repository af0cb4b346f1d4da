"""agentscan: find the sessions AI coding agents leave on a machine.

The library API lives in ``agentscan.scan.scanner`` (``Scanner``) and
``agentscan.scan.tokens`` (``token_report``); the model in ``agentscan.model``.
Nothing heavy is imported here, so ``agentscan --help`` stays fast.
"""

__version__ = "0.1.0"
