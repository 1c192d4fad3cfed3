"""Invoices with line items, an optional discount, and tax on what remains."""
from .invoice import Invoice
from .lines import LineItem
from .money import add_tax, apply_discount, to_money

__all__ = ["Invoice", "LineItem", "add_tax", "apply_discount", "to_money"]
