"""The object layer: the only code that imports pygit2 or runs `git`.

- repo.py     GitStore: scopes as branches, reads through the codec, history, notes
- writes.py   GitStore's write path: one pack per commit, CAS ref moves, transactions
- health.py   GitStore's health checks: fsck, stale locks
- objects.py  values it takes and names it uses: Keep, Signature, Draft, Rev, ref prefixes
- refs.py     ref moves: git's lock-file protocol, `update-ref --stdin` transactions
- maintenance.py  background repack / gc, prune after a rewrite
- rewrite.py  history rewrites (forget, redact)
- pack.py     the one object writer: a commit's objects as one pack file
- codec.py    the blob/message codec seam (identity; AEAD with encryption)
- crypto.py   the AES-SIV codec of an encrypted store and its keyring format
- masterkey.py the master key file, its ratchet, wrapping, the names data keys go by
- gitcmd.py   the git command: maintenance, ref transactions, transports
- coderepo.py code repositories the user links (origin, notes on code commits, blame)
"""

from gitmem.store.codec import Codec, select_codec, test_encrypt
from gitmem.store.objects import NOTES_REF, SCOPE_PREFIX, Change, Draft, Keep, Rev, Signature, signature
from gitmem.store.repo import GitStore, global_identity

__all__ = ["Codec", "Change", "Draft", "GitStore", "Keep", "NOTES_REF", "Rev", "SCOPE_PREFIX",
           "Signature", "global_identity", "select_codec", "signature", "test_encrypt"]
