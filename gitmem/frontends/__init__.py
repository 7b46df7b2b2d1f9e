"""The ways in: thin layers over gitmem.api.Store that parse, call one method and print.

launch (the entry point: standard library only, hands warm commands to the daemon), cli
and commands/ (click), daemon/ (gitmem serve and its client), mcp (the MCP server),
hookrun (agent and git hooks; hook_prompt the before-prompt hook, hook_support what
the handlers share), hooks_install (writing hook entries), runtime (how one invocation
reaches the store: passed, never patched). Only this package
prints, exits or reads the process environment for its own settings."""
