"""Checks of line items, discounts and invoice totals."""
from decimal import Decimal

import pytest

from invoicing import Invoice, LineItem


def test_line_subtotal():
    assert LineItem("pen", 3, 1.5).subtotal() == Decimal("4.50")


def test_negative_quantity_is_rejected():
    with pytest.raises(ValueError):
        LineItem("refund", -1, 9.99).subtotal()


def test_discount_reduces_net():
    invoice = Invoice("acme", discount_rate=0.1).add("desk", 1, 250).add("lamp", 2, 25)
    assert invoice.net() == Decimal("270.00")


def test_total_without_tax_is_net():
    invoice = Invoice("acme", tax_rate=0).add("desk", 2, 99.99)
    assert invoice.total() == invoice.net() == Decimal("199.98")


def test_total_includes_tax():
    invoice = Invoice("acme").add("chair", 4, 25)
    assert invoice.total() == Decimal("120.00")


def test_tax_on_discounted_net():
    invoice = Invoice("acme", tax_rate=0.2, discount_rate=0.25).add("monitor", 1, 180)
    assert invoice.net() == Decimal("135.00")
    assert invoice.tax() == Decimal("27.00")
