"""Checks of the statistics, the summaries and the course report."""
import pytest

from gradebook import Course, mean, median, summarise


def test_mean_and_median():
    assert mean([70, 85, 90]) == pytest.approx(81.6667, abs=1e-4)
    assert mean([3, 4]) == 3.5
    assert median([90, 70, 85]) == 85
    assert median([4, 1, 3, 2]) == 2.5


def test_median_of_nothing_is_an_error():
    with pytest.raises(ValueError):
        median([])


def test_summary_of_scores():
    assert summarise([62, 91, 77]) == {"count": 3, "mean": 76.67, "best": 91, "worst": 62}


def test_record_rejects_scores_out_of_range():
    course = Course("algebra", max_score=20)
    with pytest.raises(ValueError):
        course.record("quiz 1", 21)


def test_summary_of_no_scores():
    assert summarise([]) == {"count": 0, "mean": 0.0, "best": None, "worst": None}


def test_report_with_an_assignment_nobody_handed_in():
    course = Course("algebra")
    course.record("quiz 1", 80)
    course.record("quiz 1", 90)
    course.add_assignment("quiz 2")
    report = course.report()
    assert report["quiz 1"]["mean"] == 85.0
    assert report["quiz 2"] == {"count": 0, "mean": 0.0, "best": None, "worst": None}
