"""`gitmem serve`: the warm process behind state/serve.sock, and its light client.

server (the daemon) may import anything a front end may; client is standard library only,
so the launcher and hooks can ask the daemon without paying for pygit2, duckdb or numpy."""
