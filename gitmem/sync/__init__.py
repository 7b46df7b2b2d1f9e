"""Between clones and sessions: remotes, fetch/merge/push, watch.

engine (the sync round), merge (the memory-aware three-way merge), conflicts (the copies
a merge keeps and resolving them), remotes (git remotes and private scopes), watch
(polling refs for what other sessions wrote)."""
