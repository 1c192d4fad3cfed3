"""One line of an invoice."""
from dataclasses import dataclass

from .money import to_money


@dataclass
class LineItem:
    """`quantity` units of something at `unit_price` each."""

    description: str
    quantity: int
    unit_price: float

    def subtotal(self):
        """The line's amount before discount and tax."""
        if self.quantity < 0:
            raise ValueError(f"negative quantity on line {self.description!r}")
        return to_money(to_money(self.unit_price) * self.quantity)
