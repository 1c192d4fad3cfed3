"""A result list shown one page at a time."""
from .paginate import page_count, page_slice


class Listing:
    """Entries (already sorted) split into pages of `per_page`."""

    def __init__(self, entries, per_page=10):
        self.entries = list(entries)
        self.per_page = per_page

    @property
    def pages(self):
        return page_count(len(self.entries), self.per_page)

    def page(self, number):
        """The entries on page `number`."""
        return page_slice(self.entries, number, self.per_page)

    def heading(self, number):
        """The page's heading, from its first to its last entry: 'Page 2 (carol to erin)'."""
        entries = self.page(number)
        return f"Page {number} ({entries[0]} to {entries[-1]})"

    def render(self, number):
        """The heading, then one numbered line per entry, numbered across pages."""
        first = (number - 1) * self.per_page + 1
        lines = [self.heading(number)]
        for offset, entry in enumerate(self.page(number)):
            lines.append(f"{first + offset:>4}. {entry}")
        return "\n".join(lines)
