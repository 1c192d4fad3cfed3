"""``gp train --smoke``: Verl's real training machinery on CPU with a tiny model built offline and a
scripted policy, to check an installation in minutes (docs/trainer-bridge.md#smoke)."""
