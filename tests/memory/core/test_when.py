"""Time named in a question becomes a window (resolved against the recall's now)."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from memory.core.when import window_in

NOW = datetime(2023, 5, 30, 12, tzinfo=UTC)


@pytest.mark.parametrize(
    ("question", "start", "end"),
    [
        ("What did I buy in April 2022?", date(2022, 4, 1), date(2022, 5, 1)),
        ("Where did I go on March 3, 2023?", date(2023, 3, 3), date(2023, 3, 4)),
        ("the meeting on 2023-05-02", date(2023, 5, 2), date(2023, 5, 3)),
        ("what happened last week", date(2023, 5, 23), date(2023, 5, 30)),
        ("what did we decide in May", date(2023, 5, 1), date(2023, 6, 1)),
        ("what did we decide in December", date(2022, 12, 1), date(2023, 1, 1)),
        ("in 2021 where did I live", date(2021, 1, 1), date(2022, 1, 1)),
        ("what did I say yesterday", date(2023, 5, 29), date(2023, 5, 30)),
    ],
)
def test_a_named_time_is_a_window(question: str, start: date, end: date) -> None:
    window = window_in(question, NOW)
    assert window is not None and (window.start.date(), window.end.date()) == (start, end)


@pytest.mark.parametrize(
    "question", ["I may go shopping", "what is my favourite colour", "port 2022 of the server"]
)
def test_no_time_no_window(question: str) -> None:
    assert window_in(question, NOW) is None
