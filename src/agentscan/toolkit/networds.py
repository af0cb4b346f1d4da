"""What went wrong on the way to a server, in words a person acts on: the two places
agentscan talks to the network (an OTLP collector, the price update) say it alike, not
as Python's ``[Errno 111]`` nor OpenSSL's ``WRONG_VERSION_NUMBER (_ssl.c:1006)``."""

from __future__ import annotations

import re


def network_problem(error: BaseException, timeout: float | None = None) -> str:
    """``error`` (or the OS error at the bottom of its chain: an HTTP client wraps it) said plainly."""
    import socket
    import ssl

    reason = _innermost(error)
    if isinstance(reason, ConnectionRefusedError):
        return "connection refused (is the server running, on this port?)"
    if isinstance(reason, socket.gaierror):
        return "unknown host (the name could not be looked up)"
    if isinstance(reason, TimeoutError):
        return "timed out" + (f": no answer within {timeout:g} s" if timeout is not None else "")
    if isinstance(reason, ssl.SSLCertVerificationError):
        return f"the server's TLS certificate is not trusted ({reason.verify_message or 'verification failed'})"
    if isinstance(reason, ssl.SSLError):
        if "WRONG_VERSION_NUMBER" in str(reason):
            return "the server does not speak TLS here (an https:// URL for a plain http:// port?)"
        return f"TLS failed ({reason.reason or type(reason).__name__})"
    return re.sub(r"^\[Errno -?\d+\] ", "", str(reason)) or type(reason).__name__


def _innermost(error: BaseException) -> BaseException:
    """The OS error an exception was raised from, if it was (bounded: a chain may loop)."""
    found = error
    seen = 0
    cause = error.__cause__ or error.__context__
    while cause is not None and seen < 8:
        if isinstance(cause, OSError):
            found = cause
        cause, seen = cause.__cause__ or cause.__context__, seen + 1
    return found
