"""Loyalty points, membership tiers and the discounts that come with them."""
from .account import Account
from .tiers import TIERS, points_to_next, tier_for

__all__ = ["Account", "TIERS", "points_to_next", "tier_for"]
