"""What changes memories over time beyond a plain write.

forget (revert plus redaction of history), dream (consolidation as one commit),
consolidate (dream's plan: duplicates, supersessions, retirement, MEMORY.md), samefact
(one fact written differently, or two facts), grouping (near duplicates), updates (which
later memory replaces an earlier one), agentplan and decisions (a dream an agent leads).
samefact's readers, pure text: values (with clock, monthdays, zh_numbers, quantities, money and
spans), codes (reference codes compared), names, shortforms, notes and zh_names (names),
relatives (someone's relative, an owner put before), kinds (closed kinds: whose, where, what,
when) with branches (which branch of a shop, which street), synonyms (one word for one thing or
act) and alignment (what two sentences swap). Built on gitmem.memories."""
