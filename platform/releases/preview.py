"""What a release definition would hold, counted before anything is built: the QA pairs
it selects, placed in splits by the same plan and group keys the build uses. An estimate:
the snapshot may still leave out pairs whose images are not cleared, whose evidence does
not fit the family's format, or whose reference answers disagree."""

from collections import Counter

from .models import SPLITS
from .snapshot import draft_records, selected_pairs
from .splits import SplitPlan


def split_preview(*, release):
    """``{"splits": {split: {family: n}}, "placed", "selected", "left_out"}`` for
    ``release``, saved or not (only its definition is read)."""
    pairs = selected_pairs(release)
    plan = SplitPlan.make(release=release, pairs=pairs)
    splits = {split: Counter() for split in SPLITS}
    placed = left_out = 0
    for record, group_key in draft_records(pairs):
        split = plan.split_of(record=record, group_key=group_key)
        if split is None:
            left_out += 1
            continue
        splits[split][record["family"]] += 1
        placed += 1
    selected = pairs.count()
    return {
        "splits": {split: dict(sorted(families.items())) for split, families in splits.items()},
        "families": sorted({family for families in splits.values() for family in families}),
        "placed": placed,
        "selected": selected,
        "left_out": left_out,
        "without_evidence": selected - placed - left_out,
    }


def is_empty(*, release):
    """True when ``release`` would publish no QA pair at all: nothing to build."""
    return not selected_pairs(release).exists() or split_preview(release=release)["placed"] == 0
