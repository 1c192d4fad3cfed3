"""A course's scores per assignment, and summaries of them."""
from .course import Course
from .report import summarise
from .stats import mean, median

__all__ = ["Course", "mean", "median", "summarise"]
