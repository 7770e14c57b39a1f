"""Scoring predictions against a release's gold answers with each dataset's own metric.

One module per family (``webquest``, ``webqa``, ``webvln``), pure Python, no Django and
no network. Each has ``score(items, predictions, **context) -> dict`` where ``items`` maps
an item id to its gold item and ``predictions`` maps ids to already-validated
predictions; ids without a prediction are scored as wrong and counted in ``missing``.
Every report has the same shape::

    {"metrics": {name: value}, "per_category": {...}, "missing": int, "count": int}

Rates are fractions in [0, 1]. A metric that is not computed is ``None``, never a guess.
"""
