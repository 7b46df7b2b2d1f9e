"""Secret redaction: known formats, assignments, private keys, allowlist."""

import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitmem.policy.redact import redact

SECRETS = [
    ("AKIAIOSFODNN7EXAMPLE", "aws-access-key"),
    ("AKIAZ7Q3MX5TW2LPN4RB", "aws-access-key"),
    ("ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8", "github-token"),
    ("github_pat_11ABCDEFG0123456789_q8Wm2Rt5Yx9Kp3Lz7Nv4Bc6", "github-fine-grained-pat"),
    ("sk-proj-Qw3Er5Ty7Ui9Op2As4Df6Gh8Jk0Lz", "openai-key"),
    ("sk-ant-api03-Zx8Cv6Bn4Mq2Wr7Ty5Ui3Op1", "anthropic-key"),
    ("xoxb-1234567890-abcdefghij", "slack-token"),
    ("AIza" + "B" * 35, "google-api-key"),
    ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "json-web-token"),
]


@pytest.mark.parametrize("secret,kind", SECRETS)
def test_known_token_formats(secret, kind):
    out, found = redact(f"use {secret} for prod")
    assert secret not in out
    assert f"[REDACTED:{kind}]" in out
    assert found[0].kind == kind


def test_private_key_block():
    block = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nAAAA\n-----END OPENSSH PRIVATE KEY-----"
    out, _ = redact(f"key:\n{block}\nthanks")
    assert "b3BlbnNzaC1rZXktdjEAAAAA" not in out and "[REDACTED:private-key]" in out and out.endswith("thanks")


@pytest.mark.parametrize("text,secret", [("password=hunter22", "hunter22"), ("db_password: 's3cr3t!x'", "s3cr3t!x"),
                                         ("API_KEY = abcd1234efgh", "abcd1234efgh"),
                                         ("postgres://bob:pa55word@db/x", "pa55word")])
def test_assignments(text, secret):
    out, _ = redact(text)
    assert secret not in out


@pytest.mark.parametrize("text", ["I like Python", "commit 3f2a9c1e5b7d4f6a8c0e2b4d6f8a0c2e4b6d8f0a fixed it",
                                  "uuid 123e4567-e89b-12d3-a456-426614174000", "see src/gitmem/store/commit_tree.py",
                                  "记住：周二部署"])
def test_no_false_positives_on_ordinary_text(text):
    assert redact(text) == (text, [])


def test_allowlist():
    out, found = redact("token=notasecret123", allow=[r"^notasecret"])
    assert out == "token=notasecret123" and not found


@given(st.text(alphabet=string.ascii_letters + " .,", max_size=80), st.sampled_from([s for s, _ in SECRETS]),
       st.text(alphabet=string.ascii_letters + " .,", max_size=80))
def test_embedded_secret_always_removed(prefix, secret, suffix):
    out, found = redact(f"{prefix} {secret} {suffix}")
    assert secret not in out
    assert found


@given(st.text(max_size=200))
def test_redaction_is_idempotent(text):
    once, _ = redact(text)
    twice, found = redact(once)
    assert twice == once and not found
