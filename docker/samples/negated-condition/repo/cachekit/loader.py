"""A loader that keeps what a slow lookup returns for a while."""
import time

from .keys import make_key
from .store import TTLStore


class CachedLoader:
    """Wraps `fetch(*parts)`, calling it only when the store has no fresh value."""

    def __init__(self, fetch, ttl=60, clock=time.monotonic):
        self.fetch = fetch
        self.store = TTLStore(ttl, clock)
        self.hits = 0
        self.misses = 0

    def load(self, *parts):
        """The value for the lookup `parts`, from the store when it is fresh there."""
        key = make_key(*parts)
        if self.store.has(key):
            self.misses += 1
            self.store.set(key, self.fetch(*parts))
        else:
            self.hits += 1
        return self.store.get(key)
