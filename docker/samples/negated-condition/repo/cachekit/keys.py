"""Cache keys built from the parts of a lookup."""


def make_key(*parts):
    """Join the parts into one key, e.g. make_key("user", 7) == "user:7"."""
    if not parts:
        raise ValueError("a key needs at least one part")
    return ":".join(str(part) for part in parts)
