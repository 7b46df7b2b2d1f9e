"""Finding memories for a question: ranking, explanation and rendering.

engine (the Recaller over the index snapshot), hits (the Hit record the daemon sends
back; standard library only), render (prompt templates), timetravel (recall as of a
revision or date). Reads through gitmem.memories and gitmem.index."""
