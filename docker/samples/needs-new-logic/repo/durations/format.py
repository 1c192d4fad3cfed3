"""Writing durations the way people read them."""
from .units import UNITS


def format_duration(seconds):
    """`seconds` as the largest units that fit, e.g. 5400 is '1h30m' and 0 is '0s'."""
    if seconds < 0:
        raise ValueError("a duration cannot be negative")
    if seconds == 0:
        return "0s"
    parts = []
    for symbol, size in UNITS:
        count, seconds = divmod(seconds, size)
        if count:
            parts.append(f"{count}{symbol}")
    return "".join(parts)
