"""Encrypted stores: when keys are made, rotated, exported and destroyed.

marker (refs/gitmem/meta and `encrypt status`), keys (export, import, rotate, re-wrapping
the keyring), convert (`encrypt enable`: the sealed rewrite; sealing a plain clone's
history), shred (crypto-shredding on forget), keyring (the keyring and marker across
clones during a sync).


The cipher, the key names and the keyring's format belong to the object layer
(store/crypto.py); this module decides when keys are made, moved and destroyed:

- `enable` (and `init --encrypt`): a new master key (keys/master.json, 0600), an empty
  keyring, the marker `refs/gitmem/meta` saying "encrypted <lineage>", and one rewrite of
  every ref's history from plain to sealed objects, then a prune, so no plaintext object
  is left in the repository.
- `begin_shred` / `finish_shred` (forget): the forgotten memories' data keys are marked
  so the rewrite re-seals everything that used them under fresh keys; afterwards their
  keyring entries go, the epoch key ratchets forward (masterkey.ratchet) and the keyring is
  re-wrapped under it. The record in the ledger carries the new epoch and the shredded
  key ids, so every clone does the same on its next sync.
- `sync_keyring` / `after_push` (sync): the remote's marker must match this store
  (encrypted with the same lineage, or both plain); the keyrings merge as a union minus
  every shredded key, under the highest epoch; the retiring epoch key is deleted once the
  remote's keyring is at this home's epoch.
"""
