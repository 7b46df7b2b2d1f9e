"""`gitmem serve`: the warm process behind state/serve.sock, and its light client.

server (the Daemon: one warm Store, request dispatch), runner (a client's whole CLI
command run in the daemon, one at a time), worker (the background index worker, shared
with the MCP server), process (lock, pid file, socket server, signals, detach), wire (the
JSON-lines framing), client (standard library only, so the launcher and hooks can ask the
daemon without paying for pygit2, duckdb or numpy)."""
