"""The package version (read by setuptools, `gitmem --version` and the daemon handshake)."""

__version__ = "0.1.0"
