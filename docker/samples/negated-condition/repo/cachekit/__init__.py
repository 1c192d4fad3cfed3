"""An expiring in-memory store, and a loader that caches a slow lookup in it."""
from .keys import make_key
from .loader import CachedLoader
from .store import TTLStore

__all__ = ["CachedLoader", "TTLStore", "make_key"]
