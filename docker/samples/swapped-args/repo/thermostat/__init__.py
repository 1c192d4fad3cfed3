"""A room thermostat driving a proportional heater."""
from .controller import Thermostat
from .heater import Heater
from .limits import clamp

__all__ = ["Heater", "Thermostat", "clamp"]
