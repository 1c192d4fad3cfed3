"""Checks of the heater's power curve and the thermostat's target limits."""
import pytest

from thermostat import Heater, Thermostat


def test_heater_power_is_bounded():
    heater = Heater(gain=25.0)
    assert heater.power_for(19.0, 20.0) == 25.0
    assert heater.power_for(10.0, 20.0) == 100.0
    assert heater.power_for(22.0, 20.0) == 0.0


def test_initial_target_must_be_within_limits():
    with pytest.raises(ValueError):
        Thermostat(target=35.0)


def test_target_within_limits():
    assert Thermostat().set_target(21.5) == 21.5


def test_target_below_minimum_is_raised():
    assert Thermostat(min_temp=7.0).set_target(-3.0) == 7.0


def test_target_above_maximum_is_lowered():
    thermostat = Thermostat(max_temp=26.0)
    assert thermostat.set_target(40.0) == 26.0


def test_step_after_asking_for_too_much_heat():
    thermostat = Thermostat(heater=Heater(gain=10.0))
    thermostat.set_target(45.0)
    assert thermostat.step(24.0) == 40.0
