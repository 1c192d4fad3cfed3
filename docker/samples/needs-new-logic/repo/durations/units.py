"""The units a duration may use, largest first."""

UNITS = (
    ("d", 86400),
    ("h", 3600),
    ("m", 60),
    ("s", 1),
)


def unit_seconds(symbol):
    """How many seconds one `symbol` ('d', 'h', 'm' or 's') is."""
    for name, seconds in UNITS:
        if name == symbol:
            return seconds
    raise ValueError(f"unknown unit {symbol!r}")
