"""Numeric limits shared by the controller and the heater."""


def clamp(value, low, high):
    """`value` limited to the closed range from `low` to `high`."""
    return max(low, min(value, high))


def within(value, low, high):
    """Whether `value` lies in the closed range from `low` to `high`."""
    return low <= value <= high
