"""Krippendorff's alpha against examples worked out by hand."""

import pytest

from validation.agreement import compute_for_batch, krippendorff_alpha
from validation.models import BatchAgreement


def test_alpha_matches_a_hand_computed_example():
    # Five pairs judged accept (A) or reject (R) by two or three validators. Coincidences
    # (ordered pairs within each unit, weighted 1/(m−1)):
    #   [A,A] → AA 2;  [A,R] → AR 1, RA 1;  [R,R] → RR 2;  [A,A,R] → AA 1, AR 1, RA 1;  [A,A] → AA 2
    # o_AA = 5, o_AR = o_RA = 2, o_RR = 2; n_A = 7, n_R = 4, n = 11.
    # D_o = 4/11; D_e = 2·7·4 / (11·10) = 56/110; alpha = 1 − (4/11)/(56/110) = 1 − 5/7 = 2/7.
    units = [["A", "A"], ["A", "R"], ["R", "R"], ["A", "A", "R"], ["A", "A"]]
    result = krippendorff_alpha(units)
    assert result.alpha == pytest.approx(2 / 7)
    assert result.observed == pytest.approx(1 - 4 / 11)
    assert (result.units, result.values) == (5, 11)


def test_units_with_one_verdict_are_left_out():
    with_singles = krippendorff_alpha([["A", "A"], ["A", "R"], ["R", "R"], ["A"], ["R"]])
    without = krippendorff_alpha([["A", "A"], ["A", "R"], ["R", "R"]])
    assert with_singles == without
    # o_AA = 2, o_RR = 2, o_AR = o_RA = 1; n_A = n_R = 3; alpha = 1 − 5·2/(2·9) = 4/9.
    assert without.alpha == pytest.approx(4 / 9)


def test_perfect_agreement_is_one_and_no_variation_has_no_alpha():
    assert krippendorff_alpha([["A", "A"], ["R", "R", "R"]]).alpha == pytest.approx(1.0)
    unanimous = krippendorff_alpha([["A", "A"], ["A", "A"]])
    assert unanimous.alpha is None and unanimous.observed == 1.0
    assert krippendorff_alpha([]).alpha is None


@pytest.mark.django_db
def test_batch_agreement_is_stored_from_the_batchs_judgements(rater):
    from hits.models import Batch
    from validation.tests.factories import validators, written_pair
    from validation.tests.test_validation import judge

    first, second, third = validators(3)
    agreeing = written_pair(author=rater)
    split = written_pair(author=rater, question="Which shop is cheaper?")
    judge(first, agreeing, accept=True)
    judge(second, agreeing, accept=True)
    judge(first, split, accept=True)
    judge(second, split, accept=False)
    judge(third, split, accept=False)
    batch = Batch.objects.get(kind="validation")
    record = compute_for_batch(batch_id=batch.pk)
    # Units [A,A] and [A,R,R]: o_AA = 2 + 0, o_AR = o_RA = 1, o_RR = 1; n_A = 3, n_R = 2, n = 5.
    # alpha = 1 − (n−1)·2 / (2·3·2) = 1 − 8/12 = 1/3.
    assert record.value == pytest.approx(1 / 3)
    assert (record.pairs, record.judgements) == (2, 5)
    assert BatchAgreement.objects.get(batch=batch).value == pytest.approx(1 / 3)
