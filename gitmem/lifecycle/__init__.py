"""What changes memories over time beyond a plain write.

forget (revert plus redaction of history), dream (consolidation as one commit),
consolidate (dream's plan: duplicates, retirement, MEMORY.md). Built on gitmem.memories."""
