"""``--redact`` against real secret formats (issue 14, case 13).

The shapes come from the public rule sets of gitleaks (``config/gitleaks.toml``)
and detect-secrets (``detect_secrets/plugins/*.py``): one sample per format,
built here from pieces (a prefix plus filler of the rule's alphabet and
length) so that no string in this repository is a real or a
scanner-triggering key.  Each must be masked wherever it appears; and text
that only looks a little like one (a path, a token count) must survive.
"""

from __future__ import annotations

import base64
import json

import pytest

from agentscan.export.redact import mask_secrets


def _fill(alphabet: str, length: int) -> str:
    return (alphabet * (length // len(alphabet) + 1))[:length]


ALNUM = "aB3dE5fG7hJ9kL2mN4pQ6rS8tV0wXyZ1"
UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
HEX = "0123456789abcdef"


def _jwt() -> str:
    def part(value: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")
    return f"{part({'alg': 'HS256', 'typ': 'JWT'})}.{part({'sub': '1234567890', 'name': 'A User'})}.{_fill(ALNUM, 43)}"


# (format, text as it appears in a transcript or a path, the part that must not survive)
SHAPES = [
    ("anthropic api key", "sk-ant-api03-" + _fill(ALNUM, 93) + "AA", _fill(ALNUM, 40)),
    ("anthropic admin key", "sk-ant-admin01-" + _fill(ALNUM, 93) + "AA", _fill(ALNUM, 40)),
    ("openai project key", "sk-proj-" + _fill(ALNUM, 48), _fill(ALNUM, 30)),
    ("openai legacy key", "sk-" + _fill(ALNUM, 20) + "T3BlbkFJ" + _fill(ALNUM, 20), "T3BlbkFJ"),
    ("stripe secret key", "sk_" + "live_" + _fill(ALNUM, 24), _fill(ALNUM, 24)),
    ("stripe restricted key", "rk_" + "live_" + _fill(ALNUM, 24), _fill(ALNUM, 24)),
    ("stripe test key", "sk_" + "test_" + _fill(ALNUM, 24), _fill(ALNUM, 24)),
    ("aws access key id", "AKIA" + _fill(UPPER, 16), _fill(UPPER, 16)),
    ("aws session key id", "ASIA" + _fill(UPPER, 16), _fill(UPPER, 16)),
    ("aws secret in env", "AWS_SECRET_ACCESS_KEY=" + _fill(ALNUM, 40), _fill(ALNUM, 40)),
    ("github classic token", "ghp_" + _fill(ALNUM, 36), _fill(ALNUM, 36)),
    ("github oauth token", "gho_" + _fill(ALNUM, 36), _fill(ALNUM, 36)),
    ("github fine-grained token", "github_pat_" + _fill(ALNUM, 82), _fill(ALNUM, 60)),
    ("gitlab token", "glpat-" + _fill(ALNUM, 20), _fill(ALNUM, 20)),
    ("slack bot token", "xoxb-" + _fill("0123456789", 12) + "-" + _fill(ALNUM, 24), _fill(ALNUM, 24)),
    ("slack app token", "xapp-1-" + _fill(UPPER, 11) + "-" + _fill(ALNUM, 30), _fill(ALNUM, 30)),
    ("slack webhook", "https://hooks.slack.com/services/T" + _fill(UPPER, 8) + "/B" + _fill(UPPER, 8) + "/" + _fill(ALNUM, 24),
     _fill(ALNUM, 24)),
    ("google api key", "AIza" + _fill(ALNUM, 35), _fill(ALNUM, 35)),
    ("npm token", "npm_" + _fill(ALNUM, 36), _fill(ALNUM, 36)),
    ("pypi token", "pypi-AgEIcHlwaS5vcmc" + _fill(ALNUM, 60), _fill(ALNUM, 60)),
    ("hugging face token", "hf_" + _fill("abcdefghijKLMNOPQRSTuvwxyz", 34), _fill("abcdefghijKLMNOPQRSTuvwxyz", 34)),
    ("sendgrid key", "SG." + _fill(ALNUM, 22) + "." + _fill(ALNUM, 43), _fill(ALNUM, 43)),
    ("twilio api key", "SK" + _fill(HEX, 32), _fill(HEX, 32)),
    ("digitalocean token", "dop_v1_" + _fill(HEX, 64), _fill(HEX, 64)),
    ("vault token", "hvs." + _fill(ALNUM, 90), _fill(ALNUM, 90)),
    ("jwt", _jwt(), _jwt().split(".")[1]),
    ("private key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEow" + _fill(ALNUM, 64) + "\n-----END RSA PRIVATE KEY-----",
     _fill(ALNUM, 64)),
    ("openssh private key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn" + _fill(ALNUM, 64) + "\n-----END OPENSSH PRIVATE KEY-----",
     _fill(ALNUM, 64)),
    ("url credentials", "https://deploy:" + "hunter2-" + _fill(ALNUM, 8) + "@git.example.com/repo.git", "hunter2-"),
    ("database url", "postgres://admin:" + "s3cr3t-" + _fill(ALNUM, 8) + "@db:5432/app", "s3cr3t-"),
    ("basic auth header", "Authorization: Basic " + base64.b64encode(b"user:correct-horse").decode(),
     base64.b64encode(b"user:correct-horse").decode()),
    ("bearer header", "Authorization: Bearer " + _fill(ALNUM, 40), _fill(ALNUM, 40)),
    ("prefixed password", "DB_PASSWORD=" + "hunter2hunter2", "hunter2hunter2"),
    ("prefixed secret", "CLIENT_SECRET=" + _fill(ALNUM, 32), _fill(ALNUM, 32)),
    ("json password", '{"password": "' + "correct-horse-battery" + '"}', "correct-horse-battery"),
    ("yaml api key", "api_key: " + _fill(ALNUM, 32), _fill(ALNUM, 32)),
    ("plain password", "password=" + "hunter2", "hunter2"),
]


@pytest.mark.parametrize("name,text,leak", SHAPES, ids=[s[0] for s in SHAPES])
def test_every_secret_format_is_masked(name: str, text: str, leak: str) -> None:
    assert leak in text  # the sample holds what must go
    masked = mask_secrets(f"before {text} after")
    assert leak not in masked, masked
    assert "[secret]" in masked and masked.startswith("before ") and masked.endswith(" after"), masked


@pytest.mark.parametrize("name,text,leak", SHAPES, ids=[s[0] for s in SHAPES])
def test_a_secret_inside_a_path_is_masked(name: str, text: str, leak: str) -> None:
    # Every shape, a private key's block too: a POSIX file name may hold a newline.
    masked = mask_secrets(f"/home/dev/{text}/app")
    assert leak not in masked, masked


HARMLESS = [
    "/home/dev/projects/agentscan/src",
    "max_tokens=4096 and tokens: 120",
    "see https://github.com/owner/repo/pull/12",
    "the skeleton of sk-learn",  # too short to be a key
    "git@github.com:owner/repo.git",
    "feature/redact-secrets",
]


@pytest.mark.parametrize("text", HARMLESS)
def test_text_that_only_resembles_a_secret_is_kept(text: str) -> None:
    assert mask_secrets(text) == text
