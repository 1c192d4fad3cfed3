"""Descriptive statistics over lists of scores."""


def mean(values):
    """The arithmetic mean of `values`."""
    return sum(values) / len(values)


def median(values):
    """The middle value of `values`, or the mean of the two middle ones."""
    ordered = sorted(values)
    if not ordered:
        raise ValueError("the median of no values is undefined")
    middle = len(ordered) // 2
    if len(ordered) % 2 == 1:
        return ordered[middle]
    return mean(ordered[middle - 1:middle + 1])
