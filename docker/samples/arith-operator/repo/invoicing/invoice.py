"""Invoices: what a customer bought, and what they pay for it."""
from decimal import Decimal

from .lines import LineItem
from .money import add_tax, apply_discount


class Invoice:
    """Line items for one customer; a discount applies to the sum, then tax to the rest."""

    def __init__(self, customer, tax_rate=0.2, discount_rate=0):
        self.customer = customer
        self.tax_rate = tax_rate
        self.discount_rate = discount_rate
        self.lines = []

    def add(self, description, quantity, unit_price):
        """Add a line; returns the invoice so that calls can be chained."""
        self.lines.append(LineItem(description, quantity, unit_price))
        return self

    def net(self):
        """The sum of the lines after the discount, before tax."""
        subtotal = sum((line.subtotal() for line in self.lines), Decimal("0"))
        return apply_discount(subtotal, self.discount_rate)

    def total(self):
        """What the customer pays: the net amount with tax."""
        return add_tax(self.net(), self.tax_rate)

    def tax(self):
        """The tax part of the total."""
        return self.total() - self.net()
