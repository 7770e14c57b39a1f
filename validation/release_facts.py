"""What validation tells a release's datasheet: how far validators agreed, per family.

Agreement is Krippendorff's alpha over every QA pair of the family that two or more
validators had judged by the release's snapshot, accepted or rejected, not only over
the pairs the release ships: a release of accepted pairs alone holds almost no
rejections, and alpha over it would say little about the judging.
"""

from releases.facts import add_release_fact

from .agreement import krippendorff_alpha
from .models import Judgement


def agreement(*, release):
    """``{family: {"alpha", "observed", "pairs", "judgements", "validators"}}`` for the
    release's families, with what had been judged by its snapshot."""
    judgements = Judgement.objects.filter(
        qa_pair__family__in=release.families, created_at__lte=release.snapshot_at
    ).order_by("qa_pair_id", "id")
    units, validators = {}, {}
    for family, pair_id, validator_id, accept in judgements.values_list(
        "qa_pair__family", "qa_pair_id", "validator_id", "accept"
    ).iterator(chunk_size=5000):
        units.setdefault(family, {}).setdefault(pair_id, []).append("accept" if accept else "reject")
        validators.setdefault(family, set()).add(validator_id)
    facts = {}
    for family in sorted(units):
        result = krippendorff_alpha(units[family].values())
        facts[family] = {
            "statistic": "krippendorff_alpha",
            "alpha": None if result.alpha is None else round(result.alpha, 4),
            "observed": None if result.observed is None else round(result.observed, 4),
            "pairs": result.units,
            "judgements": result.values,
            "validators": len(validators[family]),
        }
    return facts


def contribute():
    add_release_fact("agreement", agreement)
