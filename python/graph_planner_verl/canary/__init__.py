"""The learning canary (``gp train --canary``): does this pipeline learn? See run.py."""
