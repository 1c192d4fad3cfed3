"""Checks of tier thresholds, discounts and account status lines."""
import pytest

from loyalty import Account, points_to_next, tier_for


def test_tier_between_thresholds():
    assert tier_for(1500) == "silver"
    assert tier_for(7200) == "gold"


def test_no_tier_below_bronze():
    account = Account("cy", 199)
    assert account.tier is None
    assert account.discount() == 0


def test_points_to_next_tier():
    assert points_to_next(150) == 50
    assert points_to_next(1000) == 4000
    assert points_to_next(9000) == 0


def test_earning_rejects_negative_purchases():
    with pytest.raises(ValueError):
        Account("dee").earn(-5)


def test_reaching_a_threshold_exactly():
    account = Account("ann")
    account.earn(999.99)
    account.earn(1)
    assert account.tier == "silver"
    assert account.status() == "ann: silver, 4000 points to the next tier"


def test_discount_at_bronze_threshold():
    assert Account("bo", 200).discount() == 0.05
