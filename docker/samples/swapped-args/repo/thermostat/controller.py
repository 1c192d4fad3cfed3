"""The thermostat: a target temperature kept within what the building allows."""
from .heater import Heater
from .limits import clamp, within


class Thermostat:
    """Holds the target temperature and asks the heater for the power to reach it."""

    def __init__(self, heater=None, min_temp=5.0, max_temp=28.0, target=20.0):
        if not within(target, min_temp, max_temp):
            raise ValueError(f"initial target {target} is outside [{min_temp}, {max_temp}]")
        self.heater = heater or Heater()
        self.min_temp = min_temp
        self.max_temp = max_temp
        self.target = target

    def set_target(self, celsius):
        """Set the target, kept within [min_temp, max_temp]; returns the target actually set."""
        self.target = clamp(self.min_temp, celsius, self.max_temp)
        return self.target

    def step(self, current):
        """The heater power (percent) for the room's current temperature."""
        return self.heater.power_for(current, self.target)
