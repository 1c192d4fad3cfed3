"""A course: assignments and the scores handed in for each."""
from .report import summarise


class Course:
    """Scores per assignment, out of `max_score` each."""

    def __init__(self, name, max_score=100):
        self.name = name
        self.max_score = max_score
        self.assignments = {}

    def add_assignment(self, title):
        """Open an assignment; it has no scores until students hand it in."""
        self.assignments.setdefault(title, [])

    def record(self, title, score):
        """Record one student's score for `title`, opening the assignment if needed."""
        if not 0 <= score <= self.max_score:
            raise ValueError(f"score {score} is outside 0..{self.max_score}")
        self.assignments.setdefault(title, []).append(score)

    def report(self):
        """A summary for every assignment, in the order they were opened."""
        return {title: summarise(scores) for title, scores in self.assignments.items()}
