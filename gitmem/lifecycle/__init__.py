"""What changes memories over time beyond a plain write.

forget (revert plus redaction of history), dream (consolidation as one commit),
consolidate (dream's plan: duplicates, supersessions, retirement, MEMORY.md), samefact
(one fact written differently, or two facts), grouping (near duplicates), updates (which
later memory replaces an earlier one), agentplan and decisions (a dream an agent leads).
Built on gitmem.memories."""
