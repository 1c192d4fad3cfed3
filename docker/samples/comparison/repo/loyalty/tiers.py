"""Membership tiers and the points needed to reach each."""

# Highest first, so that the first tier a customer qualifies for is the best one.
TIERS = (
    ("gold", 5000),
    ("silver", 1000),
    ("bronze", 200),
)


def tier_for(points):
    """The best tier `points` qualifies for, or None below the lowest threshold.

    A customer reaches a tier as soon as their points equal its threshold.
    """
    for name, threshold in TIERS:
        if points > threshold:
            return name
    return None


def points_to_next(points):
    """How many more points reach the next tier up; 0 at the top tier."""
    for _name, threshold in reversed(TIERS):
        if points < threshold:
            return threshold - points
    return 0
