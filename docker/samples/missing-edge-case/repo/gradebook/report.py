"""Summaries of one assignment's scores."""
from .stats import mean


def summarise(scores):
    """Count, mean (to two decimals), best and worst of `scores`.

    An assignment nobody has handed in yet has count 0, mean 0.0, and no best or worst.
    """
    return {
        "count": len(scores),
        "mean": round(mean(scores), 2),
        "best": max(scores, default=None),
        "worst": min(scores, default=None),
    }
