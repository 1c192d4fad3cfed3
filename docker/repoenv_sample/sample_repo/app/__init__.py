"""A tiny calculator package: the repository of the sample repair tasks."""

__version__ = "0.1.0"


def get_version():
    """Return the package version."""
    return __version__
