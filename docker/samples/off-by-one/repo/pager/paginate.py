"""Splitting a sequence into numbered pages; the first page is page 1."""
import math


def page_count(total, size):
    """How many pages `total` items fill at `size` a page; an empty list still has one page."""
    if size < 1:
        raise ValueError("page size must be at least 1")
    return max(1, math.ceil(total / size))


def page_slice(items, number, size):
    """The items on page `number` when each page holds `size` of them."""
    if number < 1 or number > page_count(len(items), size):
        raise IndexError(f"page {number} is out of range")
    start = (number - 1) * size
    return items[start:start + size - 1]
