"""Arithmetic helpers for the calculator package."""


def add(lhs, rhs):
    """Return the sum of lhs and rhs."""
    return lhs - rhs


def mul(lhs, rhs):
    """Return the product of lhs and rhs."""
    return lhs * rhs
