"""Numbered pages over result lists, as command-line listings print them."""
from .listing import Listing
from .paginate import page_count, page_slice

__all__ = ["Listing", "page_count", "page_slice"]
