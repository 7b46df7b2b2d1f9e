"""The Store facade's methods by area (keeping, sharing, agents), mixed into
gitmem.api.Store. Front ends import gitmem.api only; these modules are the facade layer
too, with its rights (they may call every package below)."""
