"""The object layer (gitmem.store): pack writer, codec seam, commits with any number of
parents, compare-and-swap and multi-ref transactions, history rewrites, notes; checked
against the real git command."""

import subprocess

import pytest
from hypothesis import given, settings, strategies as st

from gitmem.core.errors import ConflictError, CorruptObject, UsageError
from gitmem.store import Draft, GitStore, Keep, signature
from gitmem.store.codec import IDENTITY, Reversed, select_codec
from gitmem.store.pack import OBJ_BLOB, object_id, parse_tree, tree_bytes
from gitmem.store.rewrite import rewrite, rewrite_roots
from gitmem.core.trailers import format_message, parse_trailers

from conftest import decode_blob, git, raw_forms

AUTHOR = signature("Test Person", "test@example.com", 1_700_000_000)


@pytest.fixture
def gs(gm_home):
    GitStore.init(gm_home)
    return GitStore(gm_home, fsync=False, gc_every=0)


def gitdir(gs) -> str:
    return str(gs.path)


def put(gs, ref_or_scope, files, msg="write\n\nGitmem-Op: remember\n"):
    return gs.commit(ref_or_scope, lambda tip: (files, msg), AUTHOR)


# ---- pack writer -------------------------------------------------------------------
def test_pack_writer_trees_round_trip_with_git(gs):
    """Our tree parser/serialiser reproduces every tree git itself wrote byte for byte."""
    for i in range(20):
        put(gs, "main", {f"memories/{('fact', 'note')[i % 2]}/x{i}.md": b"m %d" % i})
    out = git("--git-dir", gitdir(gs), "cat-file", "--batch-all-objects", "--batch-check")
    trees = [l.split()[0] for l in out.splitlines() if l.split()[1] == "tree"]
    assert len(trees) > 20
    for oid in trees:
        raw = subprocess.run(["git", "--git-dir", gitdir(gs), "cat-file", "tree", oid],
                             capture_output=True, check=True).stdout
        assert tree_bytes(parse_tree(raw)) == raw


def test_tree_order_matches_git_mktree(gs):
    blob = object_id(OBJ_BLOB, b"x")
    names = {"a": 0o100644, "a-b": 0o100644, "a.b": 0o040000, "a0": 0o100644, "ab": 0o040000, "é": 0o100644}
    entries = {n: (m, blob if m != 0o040000 else object_id(2, b"")) for n, m in names.items()}
    listing = "".join(f"{m:06o} {'tree' if m == 0o040000 else 'blob'} {entries[n][1].hex()}\t{n}\n"
                      for n, m in names.items())
    res = subprocess.run(["git", "--git-dir", gitdir(gs), "mktree", "--missing"], input=listing.encode(),
                         capture_output=True, check=True)
    assert object_id(2, tree_bytes(entries)).hex() == res.stdout.decode().strip()


# ---- commits ------------------------------------------------------------------------
def test_read_write_round_trip_and_fsck(gs):
    c1 = put(gs, "main", {"a/b/c.md": b"hello", "top.md": b"top"})
    c2 = put(gs, "main", {"a/b/c.md": None, "a/d.md": b"moved"})
    tip = gs.tip("main")
    assert tip.id == c2 and tip.parents == [c1]
    assert gs.read(tip, "a/d.md") == b"moved" and gs.read(tip, "a/b/c.md") is None
    assert gs.subdirs(tip, "a") == []  # the emptied folder went with its last file
    assert sorted(p for p, _ in gs.walk_files(tip)) == ["a/d.md", "top.md"]
    assert [s for s, _, _ in gs.diff_files(c1, c2)] == ["D", "A"]
    git("--git-dir", gitdir(gs), "fsck", "--strict")
    # Plain git reads what the codec wrote (the plain subject with the identity codec).
    expected = gs.codec.encode_message("write\n\nGitmem-Op: remember\n").split("\n")[0]
    assert git("--git-dir", gitdir(gs), "log", "--format=%s", "main").split("\n")[0] == expected
    assert gs.info(c2).subject == "write" and gs.info(c2).op == "remember"


def test_keep_places_an_existing_blob_without_rewriting_it(gs):
    put(gs, "main", {"old/x.md": b"same bytes"})
    blob = gs.blob_id(gs.tip("main"), "old/x.md")
    put(gs, "main", {"old/x.md": None, "new/x.md": Keep(blob)})
    assert gs.blob_id(gs.tip("main"), "new/x.md") == blob


def test_merge_commit_with_two_parents(gs):
    base = put(gs, "main", {"base.md": b"base"})
    ours = put(gs, "main", {"ours.md": b"ours"})
    theirs = gs.write_commit(gs.commit_obj(base), {"theirs.md": b"theirs"}, "theirs\n", AUTHOR)
    merged = gs.commit("main", lambda tip: Draft({"theirs.md": b"theirs"}, "merge\n\nGitmem-Op: merge\n",
                                                 extra_parents=(theirs,)), AUTHOR)
    tip = gs.tip("main")
    assert tip.id == merged and tip.parents == [ours, theirs]
    assert gs.merge_base(ours, theirs) == base
    assert gs.is_ancestor(theirs, merged) and not gs.is_ancestor(merged, theirs)
    assert git("--git-dir", gitdir(gs), "rev-list", "--merges", "main").strip() == merged
    assert sorted(p for p, _ in gs.walk_files(tip)) == ["base.md", "ours.md", "theirs.md"]
    git("--git-dir", gitdir(gs), "fsck", "--strict")


def test_commit_rebuilds_when_the_tip_moves_underneath(gs):
    put(gs, "main", {"a.md": b"a"})
    calls = []

    def build(tip):
        calls.append(tip.id)
        if len(calls) == 1:  # a writer that bypasses our lock moves the ref meanwhile
            other = gs.write_commit(tip, {"b.md": b"b"}, "other\n", AUTHOR)
            (gs.path / "refs" / "heads" / "main").write_text(other + "\n")
        return {"c.md": b"c"}, "ours\n"

    put_id = gs.commit("main", build, AUTHOR)
    assert len(calls) == 2 and calls[0] != calls[1]
    assert sorted(p for p, _ in gs.walk_files(gs.tip("main"))) == ["a.md", "b.md", "c.md"]
    assert gs.tip("main").id == put_id


def test_update_refs_is_all_or_nothing(gs):
    a = put(gs, "main", {"a.md": b"a"})
    b = put(gs, "channel/x", {"b.md": b"b"})
    c = gs.write_commit(gs.tip("main"), {"c.md": b"c"}, "c\n", AUTHOR)
    with pytest.raises(ConflictError):
        gs.update_refs([("refs/heads/main", c, a), ("refs/heads/channel/x", c, a)])  # 2nd is stale
    assert gs.scopes() == {"channel/x": b, "main": a}
    gs.update_refs([("refs/heads/main", c, a), ("refs/heads/channel/x", "", b)])
    assert gs.scopes() == {"main": c}


def test_bad_paths_are_refused(gs):
    for bad in ("../x.md", "a/../../x", "./x", "a//b"):
        with pytest.raises(UsageError):
            put(gs, "main", {bad: b"x"})
    assert gs.scopes() == {}


# ---- notes ----------------------------------------------------------------------------
def test_notes_round_trip_and_git_reads_them(gs):
    c = put(gs, "main", {"a.md": b"a"})
    gs.set_note(c, "access: 3\n", AUTHOR)
    gs.set_note(c, "access: 4\n", AUTHOR)
    assert gs.note(c) == "access: 4\n"
    raw = subprocess.run(["git", "--git-dir", gitdir(gs), "notes", "--ref", "gitmem", "show", c],
                         capture_output=True, check=True).stdout
    assert decode_blob(raw.rstrip(b"\n") if raw.endswith(b"\n\n") else raw, c) == b"access: 4\n"


# ---- codec ------------------------------------------------------------------------------
@settings(max_examples=200, deadline=None)
@given(st.binary(), st.text())
def test_codecs_round_trip_any_bytes(data, path):
    for codec in (IDENTITY, Reversed()):
        assert codec.decode(path, codec.encode(path, data)) == data


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1),
       st.lists(st.tuples(st.sampled_from(["Gitmem-Op", "Gitmem-Id", "Gitmem-Scope"]),
                          st.from_regex(r"[a-z0-9/]{1,20}", fullmatch=True)), max_size=4))
def test_message_codec_round_trip_keeps_trailers_readable(subject, trailers):
    msg = format_message(subject, None, trailers)
    for codec in (IDENTITY, Reversed()):
        enc = codec.encode_message(msg)
        assert codec.decode_message(enc) == msg
        assert parse_trailers(enc) == parse_trailers(msg)


def test_reversed_codec_stores_no_plaintext_and_reads_back(gm_home):
    GitStore.init(gm_home)
    gs = GitStore(gm_home, fsync=False, gc_every=0, codec=Reversed())
    c = gs.commit("main", lambda tip: ({"m.md": b"plain secret text"},
                                       format_message("subject words", None, [("Gitmem-Op", "remember")])), AUTHOR)
    dump = subprocess.run(["git", "--git-dir", str(gs.path), "cat-file", "--batch-all-objects", "--batch"],
                          capture_output=True, check=True).stdout
    assert b"plain secret text" not in dump and b"subject words" not in dump
    assert b"Gitmem-Op: remember" in dump  # trailers stay readable for tools and sync
    assert gs.read(gs.tip("main"), "m.md") == b"plain secret text"
    assert gs.info(c).subject == "subject words" and gs.info(c).op == "remember"


def test_a_blob_written_around_the_codec_is_a_clean_error(gm_home):
    GitStore.init(gm_home)
    gs = GitStore(gm_home, fsync=False, gc_every=0, codec=Reversed())
    oid = subprocess.run(["git", "--git-dir", str(gs.path), "hash-object", "-w", "--stdin"],
                         input=b"written by plain git", capture_output=True, check=True).stdout.decode().strip()
    gs.commit("main", lambda tip: ({"x.md": Keep(oid)}, "x\n"), AUTHOR)
    with pytest.raises(CorruptObject):
        gs.read(gs.tip("main"), "x.md")


def test_unknown_test_codec_is_a_usage_error():
    with pytest.raises(UsageError):
        select_codec({"GITMEM_TEST_CODEC": "rot13"})


# ---- rewrite ---------------------------------------------------------------------------
class _Scrub:
    blob_ids: set = set()

    def __init__(self, needle: bytes):
        self.needle = needle

    def whole(self, path):
        return b"[gone]"

    def blob(self, path, data):
        return data.replace(self.needle, b"[gone]") if self.needle in data else data

    def message(self, message):
        return message.replace(self.needle.decode(), "[gone]")


def test_rewrite_scrubs_history_and_keeps_untouched_commits(gs):
    first = put(gs, "main", {"keep.md": b"nothing to see"})
    put(gs, "main", {"leak.md": b"the password is swordfish"}, msg="leak swordfish\n")
    put(gs, "main", {"later.md": b"later"})
    other = put(gs, "channel/c", {"c.md": b"unrelated"})
    roots, tags = rewrite_roots(gs)
    rw = rewrite(gs, roots, _Scrub(b"swordfish"))
    assert first not in rw.commits and "refs/heads/channel/c" not in rw.refs
    gs.update_refs([(ref, new, old) for ref, (old, new) in rw.refs.items()])
    gs.prune()
    dump = subprocess.run(["git", "--git-dir", gitdir(gs), "cat-file", "--batch-all-objects", "--batch"],
                          capture_output=True, check=True).stdout
    assert not any(f in dump for f in raw_forms("swordfish"))
    tip = gs.tip("main")
    assert gs.read(tip, "leak.md") == b"the password is [gone]"
    assert sorted(c.subject for c in gs.history(tip.id)) == ["leak [gone]", "write", "write"]
    assert gs.tip("channel/c").id == other
    git("--git-dir", gitdir(gs), "fsck", "--strict")
