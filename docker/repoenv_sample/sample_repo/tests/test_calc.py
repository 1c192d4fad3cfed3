"""pytest checks of app.calc: test_addition fails until add is fixed, test_multiplication passes."""
from app.calc import add, mul


def test_addition():
    assert add(2, 2) == 4
    assert add(2, 3) == 5


def test_multiplication():
    assert mul(3, 7) == 21
