"""The service: memories as files in scope trees, written as one commit each.

service (Memories: locate, load, write with upsert by key, redact at write, as-of),
scopes (defaulting and the scopes file), history (log, show, diff), transfer (JSONL in
and out), ledger (the redaction ledger every clone obeys). Built on gitmem.store (git),
gitmem.index (the derived sidecar) and gitmem.policy; knows nothing of features."""
