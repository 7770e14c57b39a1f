"""Agreement between validators: Krippendorff's alpha for nominal data.

Alpha suits validation because a pair has two or three verdicts, not a fixed number
(Fleiss' kappa needs the same number of raters on every item). With ``o[c][k]`` the
coincidences of values c and k within units (each unit's ordered pairs of verdicts,
weighted 1 / (m_u − 1) for a unit of m_u verdicts), ``n_c`` the column totals and
``n`` their sum:

    alpha = 1 − D_o / D_e,  D_o = Σ_{c≠k} o[c][k] / n,  D_e = Σ_{c≠k} n_c n_k / (n (n − 1))

Units with one verdict carry no information about agreement and are left out.
"""

from collections import Counter
from dataclasses import dataclass
from itertools import permutations

from django.db.models import Q

from .models import BatchAgreement, Judgement


@dataclass(frozen=True)
class Agreement:
    alpha: float | None  # None when every verdict is the same (no expected disagreement)
    observed: float | None  # share of agreeing pairs of verdicts, 1 − D_o
    units: int
    values: int


def krippendorff_alpha(units):
    """``units``: one list of values (e.g. accept/reject) per judged item."""
    coincidences = Counter()
    pairable = [list(unit) for unit in units if len(unit) >= 2]
    for unit in pairable:
        weight = 1 / (len(unit) - 1)
        for c, k in permutations(unit, 2):
            coincidences[c, k] += weight
    totals = Counter()
    for (c, _k), count in coincidences.items():
        totals[c] += count
    n = sum(totals.values())
    if n <= 1:
        return Agreement(None, None, len(pairable), round(n))
    disagreeing = sum(count for (c, k), count in coincidences.items() if c != k)
    observed = disagreeing / n
    expected = sum(totals[c] * totals[k] for c in totals for k in totals if c != k) / (n * (n - 1))
    alpha = None if expected == 0 else 1 - observed / expected
    return Agreement(alpha, 1 - observed, len(pairable), round(n))


def judgements_of_batch(batch_id):
    """Judgements about a batch's pairs: those of its validation tasks, or those on the
    pairs its workers wrote."""
    return Judgement.objects.filter(Q(assignment__batch_id=batch_id) | Q(qa_pair__assignment__batch_id=batch_id))


def compute_for_batch(*, batch_id):
    """Computes and stores the batch's agreement (idempotent)."""
    units = {}
    for pair_id, accept in judgements_of_batch(batch_id).values_list("qa_pair_id", "accept"):
        units.setdefault(pair_id, []).append("accept" if accept else "reject")
    result = krippendorff_alpha(units.values())
    record, _ = BatchAgreement.objects.update_or_create(
        batch_id=batch_id,
        defaults={
            "statistic": "krippendorff_alpha",
            "value": result.alpha,
            "observed_agreement": result.observed,
            "pairs": result.units,
            "judgements": result.values,
        },
    )
    return record
