"""Checks of parsing and formatting durations."""
import pytest

from durations import format_duration, parse_duration


def test_parse_single_unit():
    assert parse_duration("90s") == 90
    assert parse_duration(" 5M ") == 300
    assert parse_duration("2h") == 7200
    assert parse_duration("1d") == 86400


def test_parse_rejects_what_is_not_a_duration():
    for text in ("", "5x", "h", "1.5h", "-3m", "1h30", "m5"):
        with pytest.raises(ValueError):
            parse_duration(text)


def test_format_duration():
    assert format_duration(0) == "0s"
    assert format_duration(45) == "45s"
    assert format_duration(5400) == "1h30m"
    assert format_duration(90061) == "1d1h1m1s"


def test_parse_compound_durations():
    assert parse_duration("1h30m") == 5400
    assert parse_duration("2d4s") == 172804
    assert parse_duration("1m 30s") == 90


def test_format_then_parse_gives_the_seconds_back():
    for seconds in (0, 59, 61, 3600, 5400, 90061):
        assert parse_duration(format_duration(seconds)) == seconds
