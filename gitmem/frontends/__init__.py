"""The ways in: thin layers over gitmem.api.Store that parse, call one method and print.

launch (the entry point: standard library only, hands warm commands to the daemon), cli
and commands/ (click), daemon/ (gitmem serve and its client), mcp (the MCP server),
hookrun (agent and git hooks), hooks_install (writing hook entries). Only this package
prints, exits or reads the process environment for its own settings."""
