"""Reading durations written by people or by `format_duration`."""
from .units import unit_seconds


def parse_duration(text):
    """The number of seconds `text` stands for, e.g. '90s' is 90 and '2h' is 7200.

    Raises ValueError for text that is not a duration.
    """
    text = text.strip().lower()
    if not text:
        raise ValueError("empty duration")
    number, symbol = text[:-1], text[-1]
    if not number.isdigit():
        raise ValueError(f"bad number in duration {text!r}")
    return int(number) * unit_seconds(symbol)
