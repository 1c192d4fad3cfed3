"""A heater whose power follows how far the room is below its target."""
from .limits import clamp


class Heater:
    """Proportional control: `gain` percent of power for each degree below the target."""

    def __init__(self, gain=25.0):
        self.gain = gain

    def power_for(self, current, target):
        """The power in percent (0 to 100) to run at, given the room and target temperatures."""
        return clamp((target - current) * self.gain, 0.0, 100.0)
