"""The base every layer stands on: pure data and rules, no git, no DuckDB, no model.

errors (exit codes and the one exception family), schema (every setting, its kind and default),
config (flag > env > config.toml > defaults, checked against the schema), model (Memory, ids, front matter, scope names), trailers
(commit messages), tokens (the tokenizer BM25 and budgets share), fsutil (locks and
atomic writes), paths (the layout of a gitmem home)."""
