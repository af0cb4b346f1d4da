"""What is checked of an OTLP/HTTP endpoint and its headers before anything is built or sent.

``http.client`` raises ``ValueError``/``InvalidURL``/``UnicodeEncodeError`` deep inside
the first request for input it cannot send (a port that is not a number, a space in the
path, a header value with a line break or a character outside Latin-1): a traceback
that, for a header, even printed the value (an API key).  Here each one is a usage
error that names what is wrong and never echoes a secret.
"""

from __future__ import annotations

import re
from typing import Mapping
from urllib.parse import urlsplit, urlunsplit

from agentscan.errors import UsageProblem
from agentscan.toolkit.words import quoted

#: an RFC 9110 ``token``: what a header name may be (``http.client`` lets spaces through)
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
#: a scheme and the slashes after it (``http://``, ``http:/``): what is shown before masked userinfo
_SCHEME = re.compile(r"\A[A-Za-z][A-Za-z0-9+.-]*:/+")
#: a query string (``?token=…``: some vendors take their key so), masked as userinfo is
_QUERY = re.compile(r"\?.*", re.S)


def shown_url(url: str) -> str:
    """``url`` as a message or ``--json`` may show it: userinfo (``***@``) and a query
    string (``?***``, a fragment after it too) masked, since either may hold a secret.
    Userinfo is everything from after the scheme's slashes (or the start, for a URL typed
    without one) to the last ``@``, whatever it holds: a password may have a ``/``, ``#`` or
    ``?`` in it (a base64 token), and masking a little too much costs nothing."""
    at = url.rfind("@")
    if at >= 0:
        scheme = _SCHEME.match(url)
        start = scheme.end() if scheme is not None else 0
        if at >= start:
            url = url[:start] + "***" + url[at:]
    return _QUERY.sub("?***", url, count=1)


#: a URL inside a command line: a scheme, then up to a space or a quote
_URL_IN_TEXT = re.compile(r"""\b[A-Za-z][A-Za-z0-9+.-]*://[^\s'"]+""")


def shown_command(command: str) -> str:
    """A hook command as a message or ``--json`` may show it: each URL in it as ``shown_url``
    shows one (``--otlp-endpoint https://***@host/v1/traces?***``), and what else looks like a
    secret (``api_key=…``, ``Bearer …``) masked as ``show --redact`` masks it."""
    from agentscan.export.redact import mask_secrets

    shown = _URL_IN_TEXT.sub(lambda match: shown_url(match.group()), command)
    # (an endpoint written without a scheme, ``otel.example:4318/v1/traces?key=…``, is no URL to
    # the search above: masked as the hook's own option's value; ``shown_url`` twice is once)
    shown = _ENDPOINT_VALUE.sub(lambda match: match[1] + shown_url(match[2]), shown)
    return mask_secrets(shown) or command


#: the value of the hook's ``--otlp-endpoint`` (``=URL`` or `` URL``, quoted or not)
_ENDPOINT_VALUE = re.compile(r"""(--otlp-endpoint(?:=|\s+)['"]?)([^\s'"]+)""")


def traces_url(endpoint: str) -> str:
    """``http(s)://host:port`` gets the standard ``/v1/traces`` path; a URL with a path is used as is."""
    text = endpoint.strip()
    shown = shown_url(text)
    try:
        parts = urlsplit(text)
    except ValueError:  # unpaired brackets, or no address inside them
        raise UsageProblem(f"--endpoint is not a valid URL (a host in brackets must be an IPv6 address, "
                           f"such as [::1]): {quoted(shown)}") from None
    try:
        parts.port  # noqa: B018 - raises ValueError for a port that is no number in 0-65535
    except ValueError:
        raise UsageProblem(f"--endpoint is not a valid URL ({_port_problem(parts.netloc)}): {quoted(shown)}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageProblem(f"--endpoint must be an http:// or https:// URL, not {quoted(shown)}{_with_scheme(text)}")
    if "@" in parts.netloc:
        # urllib sends no userinfo: the host was looked up as "user:password@host", and the
        # error printed the password.
        raise UsageProblem(
            "--endpoint must not hold credentials (user:password@): give them as a header, "
            "such as --header 'Authorization=Basic …' (for the hook, in OTEL_EXPORTER_OTLP_HEADERS)"
        )
    if any(char.isspace() or ord(char) < 32 or ord(char) == 127 for char in text):
        raise UsageProblem(f"--endpoint must not hold spaces or control characters (percent-encode them): {quoted(shown)}")
    if not (parts.path + parts.query).isascii():
        # http.client sends the request line as ASCII: a UnicodeEncodeError deep in the first
        # request (a host is fine: it goes out as IDNA).
        raise UsageProblem(f"--endpoint's path and query must be ASCII (percent-encode the rest): {quoted(shown)}")
    path = parts.path if parts.path not in ("", "/") else "/v1/traces"
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


def _with_scheme(text: str) -> str:
    """`` (did you mean http://127.0.0.1:4318?)`` for a host and port typed with no scheme
    (``127.0.0.1:4318``, ``localhost:4318``): a collector's address as its docs often give it."""
    if "://" in text or text.startswith("/") or "@" in text:  # credentials: refused, whatever the scheme
        return ""
    guess = "http://" + text
    try:
        parts = urlsplit(guess)
        parts.port  # noqa: B018 - a port that is no number: no guess
    except ValueError:
        return ""
    return f" (did you mean {shown_url(guess)}?)" if parts.hostname else ""


def _port_problem(netloc: str) -> str:
    """What is wrong with the port of ``netloc`` (one ``urlsplit`` refused): said, not only
    "not a valid URL", so ``:99999`` is seen as the typo it is."""
    # After the userinfo (never shown) and an IPv6 host's brackets.
    port = netloc.rpartition("@")[2].rpartition("]")[2].partition(":")[2]
    if port.isascii() and port.isdigit():
        return f"its port {int(port)} is out of range: a port is 0 to 65535"
    return f"its port {quoted(port)} is not a number from 0 to 65535"


def check_headers(headers: Mapping[str, str]) -> None:
    """Every header can go on the wire as it is; a value is never shown (it is often a key)."""
    for key, value in headers.items():
        if not _TOKEN.fullmatch(key):
            raise UsageProblem(f"{quoted(key)} is not a valid HTTP header name")
        try:
            value.encode("latin-1")
        except UnicodeEncodeError:
            bad = True
        else:
            bad = any(char in value for char in "\r\n\0")
        if bad:
            raise UsageProblem(
                f"the value of header {quoted(key)} cannot be sent over HTTP: it holds a line break, a NUL "
                "or a character outside Latin-1 (the value is not shown)"
            )
