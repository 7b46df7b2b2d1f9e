"""Encrypted stores: when keys are made, rotated, exported and destroyed.

The cipher itself is the object layer's codec (gitmem.store.crypto); this package decides
over it: enabling encryption on a store, the master key's life, crypto-shredding on forget,
the keyring across clones."""
