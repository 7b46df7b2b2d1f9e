"""trailers.py: commit messages that tools can parse."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from gitmem.core.trailers import format_message, parse_trailers, split_message

KEYS = st.sampled_from(["Gitmem-Op", "Gitmem-Id", "Gitmem-Scope", "Gitmem-Session", "Gitmem-Reason"])
VALUES = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=30) \
    .filter(lambda v: v.split())


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60), st.lists(st.tuples(KEYS, VALUES), max_size=6))
def test_formatted_trailers_parse_back(subject, trailers):
    msg = format_message(subject, None, trailers)
    got = parse_trailers(msg)
    want: dict[str, list[str]] = {}
    for k, v in trailers:
        want.setdefault(k, []).append(" ".join(v.split()))
    assert got == want
    assert msg.split("\n", 1)[0] == (" ".join(subject.split()) or "(no subject)")  # one line
    text, tail = split_message(msg)
    assert (tail != "") == bool(trailers) and text.split("\n", 1)[0] == msg.split("\n", 1)[0]


def test_a_last_paragraph_that_is_not_trailers_is_not_parsed():
    assert parse_trailers("subject\n\nthis is: prose with spaces in the key part\n") == {}
    assert parse_trailers("only a subject\n") == {}
    assert split_message("subject\n\nbody\n") == ("subject\n\nbody", "")
