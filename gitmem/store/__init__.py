"""The object layer: the only code that imports pygit2 or runs `git`.

- repo.py     GitStore: scopes as branches, reads through the codec, commits with any
              number of parents, CAS ref moves, multi-ref transactions, notes
- rewrite.py  history rewrites (forget, redact)
- pack.py     the one object writer: a commit's objects as one pack file
- codec.py    the blob/message codec seam (identity; AEAD with encryption)
- gitcmd.py   the git command: maintenance, ref transactions, transports
- coderepo.py code repositories the user links (origin, notes on code commits, blame)
"""

from .codec import Codec, select_codec
from .repo import NOTES_REF, SCOPE_PREFIX, Change, Draft, GitStore, Keep, Rev, Signature, global_identity, signature

__all__ = ["Codec", "Change", "Draft", "GitStore", "Keep", "NOTES_REF", "Rev", "SCOPE_PREFIX",
           "Signature", "global_identity", "select_codec", "signature"]
