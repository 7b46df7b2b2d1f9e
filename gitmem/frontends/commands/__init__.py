"""The click commands, one module per family; each opens the Store, calls one method and prints."""
