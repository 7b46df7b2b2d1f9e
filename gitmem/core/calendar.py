"""Month and weekday names in English, the one list every reader of dates uses (the
lifecycle's value reader, recall's query dates, the update judge's calendar days)."""

from __future__ import annotations

# name or short form (lower case) -> month number, 1-12
MONTHS = {m: i for i, names in enumerate((
    ("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"), ("may",),
    ("jun", "june"), ("jul", "july"), ("aug", "august"), ("sep", "sept", "september"),
    ("oct", "october"), ("nov", "november"), ("dec", "december")), 1) for m in names}
# name or short form (lower case) -> weekday, Monday 0 (as datetime.date.weekday)
WEEKDAYS = {d: i for i, names in enumerate((("mon", "monday"), ("tue", "tues", "tuesday"),
            ("wed", "wednesday"), ("thu", "thur", "thurs", "thursday"), ("fri", "friday"),
            ("sat", "saturday"), ("sun", "sunday"))) for d in names}


def alternation(names: dict[str, int]) -> str:
    """A regex alternation of the names, longest first (so "sept" is tried before "sep")."""
    return "|".join(sorted(names, key=len, reverse=True))
