"""Rules applied to text on its way in and out of the store.

redact (secrets out of every write and every read for a model), injection (text aimed at
the model is quarantined and never injected), weight (importance, use and decay: one
model for dream, context and recall), access (the local log of what was recalled).
May import only gitmem.core."""
