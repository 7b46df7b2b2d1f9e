"""Memory around agent sessions and code repositories.

context (the session-start bundle), extract and statements (durable statements out of a
transcript), transcripts (reading agent transcript formats), receipts (what a model was
shown), importers (agent memory folders in and out), links (code repositories and
commits)."""
