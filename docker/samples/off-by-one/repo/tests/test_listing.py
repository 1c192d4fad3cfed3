"""Checks of page counts, page contents and listing output."""
import pytest

from pager import Listing, page_count

NAMES = ["ada", "bob", "cy", "dee", "eve", "fay", "gus"]


def test_page_count():
    assert page_count(45, 10) == 5
    assert page_count(0, 10) == 1
    with pytest.raises(ValueError):
        page_count(3, 0)


def test_page_out_of_range():
    listing = Listing(NAMES, per_page=3)
    assert listing.pages == 3
    with pytest.raises(IndexError):
        listing.page(4)
    with pytest.raises(IndexError):
        listing.page(0)


def test_full_pages():
    listing = Listing(NAMES, per_page=3)
    assert listing.page(1) == ["ada", "bob", "cy"]
    assert listing.page(2) == ["dee", "eve", "fay"]


def test_last_page_holds_the_rest():
    assert Listing(NAMES, per_page=3).page(3) == ["gus"]
    assert Listing(NAMES, per_page=5).page(2) == ["fay", "gus"]


def test_render_numbers_entries_across_pages():
    text = Listing(NAMES, per_page=2).render(2)
    assert text == "Page 2 (cy to dee)\n   3. cy\n   4. dee"


def test_heading_with_one_entry_a_page():
    assert Listing(NAMES, per_page=1).heading(5) == "Page 5 (eve to eve)"
