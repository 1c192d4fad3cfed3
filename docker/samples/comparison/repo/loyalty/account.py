"""A customer's loyalty account."""
from .tiers import points_to_next, tier_for

# The discount each tier gives on a purchase.
DISCOUNTS = {"gold": 0.15, "silver": 0.10, "bronze": 0.05}


class Account:
    """Points earned by one customer: one point per whole unit of currency spent."""

    def __init__(self, name, points=0):
        self.name = name
        self.points = points

    def earn(self, amount_spent):
        """Credit the points for a purchase and return the new balance."""
        if amount_spent < 0:
            raise ValueError("a purchase cannot be negative")
        self.points += int(amount_spent)
        return self.points

    @property
    def tier(self):
        return tier_for(self.points)

    def discount(self):
        """The discount rate the account's tier gives; 0 without a tier."""
        return DISCOUNTS.get(self.tier, 0)

    def status(self):
        """One line for the receipt, e.g. 'ann: silver, 4000 points to the next tier'."""
        tier = self.tier or "no tier"
        remaining = points_to_next(self.points)
        if remaining == 0:
            return f"{self.name}: {tier}, top tier"
        return f"{self.name}: {tier}, {remaining} points to the next tier"
