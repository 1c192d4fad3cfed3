"""Human-readable durations: '90s', '5m', '1h30m' and so on, to and from seconds."""
from .format import format_duration
from .parse import parse_duration
from .units import UNITS, unit_seconds

__all__ = ["UNITS", "format_duration", "parse_duration", "unit_seconds"]
