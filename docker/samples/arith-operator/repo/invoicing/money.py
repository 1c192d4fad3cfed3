"""Money helpers: rounding to cents, and applying percentage rates."""
from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")


def to_money(value):
    """Round a number to whole cents, halves away from zero, as invoices print them."""
    return Decimal(str(value)).quantize(CENT, rounding=ROUND_HALF_UP)


def apply_discount(amount, rate):
    """The amount left after a discount of `rate` (0.1 means 10 %)."""
    return to_money(to_money(amount) * (1 - Decimal(str(rate))))


def add_tax(amount, rate):
    """The gross amount: `amount` with tax at `rate` (0.2 means 20 %)."""
    return to_money(to_money(amount) * (1 - Decimal(str(rate))))
