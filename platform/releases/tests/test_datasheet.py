"""The datasheet (README.md) answers the datasheet-for-datasets questions from the
release's own facts: counts, licences, rater pool, what was left out and why, and the
validators' agreement per family, which validation contributes to the build."""

import pytest

from assets.models import Asset
from hits import services as hits
from hits.errors import NoTaskAvailable
from hits.models import Batch
from releases import build
from releases.formats.datasheet import readme
from releases.models import ReleaseFile
from validation.models import Judgement
from validation.services import queue_pending_pairs
from validation.tests.factories import validators

from . import data
from .helpers import build_now, read, release

pytestmark = pytest.mark.django_db
SECTIONS = (
    "## Motivation",
    "## Composition",
    "## Collection process",
    "## Preprocessing, cleaning and labelling",
    "## Uses",
    "## Distribution",
    "## Maintenance",
)
YES = {"answer_correct": True, "follows_guidelines": True, "sources_needed": True}
NO = {"answer_correct": False, "follows_guidelines": True, "sources_needed": True, "comment": "Wrong total."}


def _validate(pairs, verdicts):
    """Three validators take validation tasks in turn and give each pair the verdicts
    listed for it, in order (a third verdict only where the first two disagreed)."""
    queue_pending_pairs()
    batch = Batch.objects.get(kind="validation", state="open")
    given = {pair.pk: list(votes) for pair, votes in zip(pairs, verdicts, strict=True)}
    for validator in validators(3):
        while True:
            try:
                assignment, _ = hits.request_next_task(worker=validator, batch_id=batch.pk)
            except NoTaskAvailable:
                break
            accept = given[assignment.task.payload["qa_pair"]].pop(0)
            hits.submit_assignment(assignment_id=assignment.pk, worker=validator, data=YES if accept else NO)
    assert not any(given.values()), given


def test_the_datasheet_has_every_section_in_order_and_the_releases_facts(admin_user, rater):
    data.screen_pair(rater, screens=2)
    data.screen_pair(rater, screen_state=Asset.ReviewState.PENDING_REVIEW)  # left out: uncleared evidence
    data.webqa_image_pair(rater)
    built = build_now(release(admin_user, families=["webquest", "webqa"], notes="First cut."))
    sheet = built.datasheet
    assert [sheet.index(section) for section in SECTIONS] == sorted(sheet.index(section) for section in SECTIONS)
    assert "First cut." in sheet
    splits = built.counts["splits"]
    row = f"| train | {splits['train'].get('webqa', 0)} | {splits['train'].get('webquest', 0)} |"
    assert row in sheet
    assert "2 QA pairs in all, of 3 selected" in sheet
    assert "uncleared evidence (a screenshot or image it cites was not cleared by a reviewer): 1" in sheet
    assert "Image licences recorded: CC BY-SA 4.0." in sheet
    assert "Rater pool: 1 question writer contributed" in sheet
    assert "Every question in this release was written by a person" in sheet  # kept from before
    assert "No validation agreement was recorded" in sheet  # nobody validated these pairs


def test_validation_agreement_per_family_comes_from_the_validation_app(admin_user, rater):
    pairs = [data.screen_pair(rater, state="pending_validation") for _ in range(3)]
    # accept/accept, accept/reject then accept, reject/reject: n_accept 4, n_reject 3,
    # disagreeing coincidences 2 of 7, so alpha = 1 - (2/7) / (24/42) = 0.5.
    _validate(pairs, [(True, True), (True, False, True), (False, False)])
    built = build_now(release(admin_user, families=["webquest"]))
    assert built.counts["items"] == 2  # the rejected pair is not shipped, but its verdicts count
    assert built.counts["agreement"] == {
        "webquest": {"statistic": "krippendorff_alpha", "alpha": 0.5, "observed": 0.7143, "pairs": 3,
                     "judgements": 7, "validators": 3},
    }  # fmt: skip
    assert "| WebQuest | 0.500 | 0.714 | 3 | 7 | 3 |" in built.datasheet
    assert built.manifest["counts"]["agreement"] == built.counts["agreement"]


def test_a_rebuild_keeps_the_agreement_the_release_was_published_with(admin_user, rater):
    pairs = [data.screen_pair(rater, state="pending_validation") for _ in range(3)]
    _validate(pairs, [(True, True), (True, False, True), (False, False)])
    built = build_now(release(admin_user, families=["webquest"]))
    Judgement.objects.filter(qa_pair=pairs[2]).delete()  # live agreement now differs
    result = build.check_rebuild(release_id=built.pk)
    assert result["identical"], result["differing"]
    assert "README.md" in ReleaseFile.objects.filter(release=built).values_list("path", flat=True)


def test_the_readme_file_starts_with_the_hugging_face_header_and_the_page_shows_the_datasheet(admin_user, rater):
    data.screen_pair(rater)
    built = build_now(release(admin_user, families=["webquest"]))
    text = read(built, "README.md").decode()
    assert text.startswith('---\npretty_name: "trail 1.0.0"\n')
    assert "configs:\n- config_name: webquest\n  data_files:\n" in text
    assert text.endswith(built.datasheet) and not built.datasheet.startswith("---")
    assert readme(release=built, counts=built.counts) == built.datasheet  # written from the stored counts
