"""The prune that ends every forget: the git steps with nothing to do are skipped,
and a loose unreachable object, a temporary pack or a reflog entry still goes."""

from __future__ import annotations

import subprocess

from conftest import git


def _has(git_dir: str, oid: str) -> bool:
    return subprocess.run(["git", "--git-dir", git_dir, "cat-file", "-e", oid], capture_output=True).returncode == 0


def test_prune_drops_loose_unreachable_objects_temp_packs_and_reflogs(store):
    gd = str(store.git.path)
    store.remember("a memory so the store has history")
    store.git.prune()  # nothing loose, no reflogs: only the repack runs
    loose = subprocess.run(["git", "--git-dir", gd, "hash-object", "-w", "--stdin"], input=b"unreachable text 1\n",
                           capture_output=True, check=True).stdout.decode().strip()
    assert _has(gd, loose)
    store.git.prune()
    assert not _has(gd, loose)
    # an object only a reflog holds
    blob = subprocess.run(["git", "--git-dir", gd, "hash-object", "-w", "--stdin"], input=b"reflog text 2\n",
                          capture_output=True, check=True).stdout.decode().strip()
    tree = subprocess.run(["git", "--git-dir", gd, "mktree"], input=f"100644 blob {blob}\tx\n".encode(),
                          capture_output=True, check=True).stdout.decode().strip()
    c = git("--git-dir", gd, "commit-tree", tree, "-m", "held by a reflog").strip()
    git("--git-dir", gd, "update-ref", "--create-reflog", "refs/gitmem/tmp", c)
    git("--git-dir", gd, "update-ref", "-d", "refs/gitmem/tmp")
    git("--git-dir", gd, "update-ref", "--create-reflog", "refs/gitmem/other", c)
    git("--git-dir", gd, "update-ref", "-m", "move", "refs/gitmem/other", store.git.ref("refs/heads/main"))
    git("--git-dir", gd, "repack", "-q", "-d")  # packed, held only by the reflog entry
    assert _has(gd, blob)
    store.git.prune()
    assert not _has(gd, blob)
    tmp = store.git.path / "objects" / "pack" / "tmp_pack_leftover"
    tmp.write_bytes(b"half-written pack")
    store.git.prune()
    assert not tmp.exists()


def _pack(gd: str, pack_dir, texts: list[bytes]) -> list[str]:
    """Write `texts` as loose objects, then as one pack of their own; their ids."""
    ids = [subprocess.run(["git", "--git-dir", gd, "hash-object", "-w", "--stdin"], input=t,
                          capture_output=True, check=True).stdout.decode().strip() for t in texts]
    subprocess.run(["git", "--git-dir", gd, "pack-objects", "-q", str(pack_dir / "pack")],
                   input=("\n".join(ids) + "\n").encode(), capture_output=True, check=True)
    git("--git-dir", gd, "prune-packed")
    return ids


def test_prune_with_drop_repacks_only_the_packs_holding_those_objects(store):
    gd = str(store.git.path)
    store.remember("a memory so the store has history")
    store.git.prune()
    pack_dir = store.git.path / "objects" / "pack"
    (other,) = _pack(gd, pack_dir, [b"unreachable, in a pack no rewrite touched\n"])
    ids = _pack(gd, pack_dir, [b"replaced text 3\n", b"replaced text 4\n"])
    assert len(list(pack_dir.glob("pack-*.pack"))) == 3
    store.git.prune(drop={ids[0]})
    assert not _has(gd, ids[0]) and not _has(gd, ids[1])  # the pack holding one is repacked: both go
    assert _has(gd, other)  # a pack holding none of them is kept as it is
    git("--git-dir", gd, "fsck", "--strict")
    assert store.get(store.list()[0].id).text == "a memory so the store has history"
    # Loose objects only (a small fetch leaves them loose): no pack is repacked.
    loose = subprocess.run(["git", "--git-dir", gd, "hash-object", "-w", "--stdin"], input=b"loose text 5\n",
                           capture_output=True, check=True).stdout.decode().strip()
    store.git.prune(drop={loose})
    assert not _has(gd, loose) and _has(gd, other)
    store.git.prune()  # without `drop`: everything unreachable goes
    assert not _has(gd, other)
