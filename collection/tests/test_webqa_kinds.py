"""The image filter, six-image QA and text multi-hop kinds: their rules are held on the
server, with clear messages and nothing saved when a submission breaks one."""

import pytest

from assets.models import Asset
from collection.kinds.image_filter import make_filter_tasks
from collection.kinds.text_multihop_qa import make_text_tasks
from collection.webqa_demo import SNIPPETS as DEMO_SNIPPETS
from corpus.models import Evidence, ImageTriple, QAPair, Snippet
from corpus.signals import pairs_written
from hits.models import Assignment, Batch
from tests.api import api_error
from tests.pools import image_group, pool_images, snippet, snippets, webqa_batch

pytestmark = pytest.mark.django_db


def _cleared(images):
    """Pool images as review leaves them when it finds nothing wrong: only these go to workers."""
    Asset.objects.filter(image_source__in=images).update(review_state=Asset.ReviewState.CLEARED)
    return images


def _take(client, batch):
    response = client.post("/api/v1/assignments/", {"batch": batch.pk}, format="json")
    assert response.status_code == 201, response.json()
    return response.json()["id"]


def _submit(client, assignment_id, answer):
    return client.post(f"/api/v1/assignments/{assignment_id}/submit/", {"answer": answer}, format="json")


# --- Image filter -------------------------------------------------------------------------


@pytest.fixture
def filter_task(rater, api_for):
    images = _cleared(pool_images(10))
    batch = webqa_batch(kind="image_filter", payloads=[{"topic": "lighthouses", "images": [i.pk for i in images]}])
    client = api_for(rater)
    return client, _take(client, batch), images


@pytest.mark.parametrize("picked", [2, 4])
def test_filter_task_needs_exactly_three_images(filter_task, picked):
    client, assignment_id, images = filter_task
    response = _submit(client, assignment_id, {"images": [i.pk for i in images[:picked]], "label": "lighthouses"})
    assert response.status_code == 400
    error = api_error(response, 400, "invalid")
    assert error["fields"]["answer.images"] == [f"Pick exactly 3 images; you picked {picked}."]
    assert not ImageTriple.objects.exists()
    assert Assignment.objects.get(pk=assignment_id).state == Assignment.State.ASSIGNED


def test_filter_task_refuses_images_of_another_task_and_a_missing_label(filter_task):
    client, assignment_id, images = filter_task
    stranger = _cleared(pool_images(1, topic="violins"))[0]
    response = _submit(client, assignment_id, {"images": [images[0].pk, images[1].pk, stranger.pk], "label": " "})
    fields = api_error(response, 400, "invalid")["fields"]
    assert fields["answer.images"] == [f"Image {stranger.pk} is not one of this task's images."]
    assert fields["answer.label"] == ["Say in a few words what the three images have in common."]
    response = _submit(client, assignment_id, {"images": [images[0].pk] * 3, "label": "towers"})
    assert api_error(response, 400, "invalid")["fields"]["answer.images"] == ["The same image is chosen twice."]
    assert not ImageTriple.objects.exists()


def test_filter_task_keeps_the_triple_and_its_label(filter_task):
    client, assignment_id, images = filter_task
    picked = [images[2].pk, images[5].pk, images[7].pk]
    response = _submit(client, assignment_id, {"images": picked, "label": "  white   towers on rocks "})
    assert response.status_code == 200, response.json()
    triple = ImageTriple.objects.get()
    assert sorted(triple.images.values_list("pk", flat=True)) == sorted(picked)
    assert (triple.label, triple.topic, triple.assignment_id) == ("white towers on rocks", "lighthouses", assignment_id)


def test_filter_tasks_are_made_from_each_topic_in_tens_once():
    _cleared(pool_images(25, topic="lighthouses"))
    _cleared(pool_images(9, topic="violins"))
    batch = Batch.objects.create(name="Filter", kind="image_filter")
    assert make_filter_tasks(batch=batch) == 2
    assert make_filter_tasks(batch=batch) == 0  # the same sets are not added twice
    assert {task.payload["topic"] for task in batch.tasks.all()} == {"lighthouses"}
    assert all(len(task.payload["images"]) == 10 for task in batch.tasks.all())


# --- Six-image QA -------------------------------------------------------------------------


@pytest.fixture
def six_image_task(rater, api_for):
    images = _cleared(pool_images(6))
    group = image_group(images)
    batch = webqa_batch(kind="six_image_qa", payloads=[{"group": group.pk}])
    client = api_for(rater)
    return client, _take(client, batch), images, group


CHECKS = {"checklist": ["not_simple_fact", "not_text_searchable", "not_image_bound", "meaningful_alone"]}


def _pair(images, n=0):
    return {
        "images": [image.pk for image in images],
        "question": f"Is the lantern room of lighthouse {n} painted the same colour as its door?",
        "answer": f"Yes, lighthouse {n} has a red lantern room and a red door.",
        "keyword_answer": "yes",
    }


def _good(images):
    return {"pairs": [_pair(images[0:2], 0), _pair(images[2:3], 1), _pair(images[3:4], 2)], **CHECKS}


@pytest.mark.parametrize("count", [0, 3])
def test_six_image_pair_needs_one_or_two_images(six_image_task, count):
    client, assignment_id, images, _ = six_image_task
    answer = _good(images)
    answer["pairs"][1]["images"] = [image.pk for image in images[:count]]
    response = _submit(client, assignment_id, answer)
    assert response.status_code == 400
    assert api_error(response, 400, "invalid")["fields"]["answer.pairs.1.images"] == [
        f"Tick the one or two images the answer needs; you ticked {count}."
    ]
    assert not QAPair.objects.exists()


def test_six_image_task_needs_a_pair_using_two_images(six_image_task):
    client, assignment_id, images, _ = six_image_task
    answer = _good(images)
    answer["pairs"][0]["images"] = [images[0].pk]
    response = _submit(client, assignment_id, answer)
    assert api_error(response, 400, "invalid")["fields"]["answer.pairs"] == [
        "At least one of the three questions must need two images together; each of yours needs one."
    ]
    assert not QAPair.objects.exists()


def test_six_image_task_holds_the_guidelines(six_image_task):
    client, assignment_id, images, _ = six_image_task
    answer = _good(images)
    answer["pairs"][0]["question"] = "What colour is the roof in this image?"
    answer["pairs"][1]["answer"] = "red"
    answer["pairs"][2]["keyword_answer"] = ""
    answer["pairs"][2]["images"] = [images[5].pk + 1000]
    answer["checklist"] = answer["checklist"][:3]
    fields = api_error(_submit(client, assignment_id, answer), 400, "invalid")["fields"]
    assert "“this image”" in fields["answer.pairs.0.question"][0]
    assert fields["answer.pairs.1.answer"][0].startswith("Write the answer as a full sentence")
    assert fields["answer.pairs.2.keyword_answer"] == [
        "Give the keyword answer: the few words that answer the question."
    ]
    assert fields["answer.pairs.2.images"] == [f"Image {images[5].pk + 1000} is not one of this task's images."]
    assert fields["answer.checklist"] == [
        "Tick every point of the checklist once your questions meet it; 1 not ticked yet."
    ]
    answer = _good(images)
    answer["pairs"] = answer["pairs"][:2]
    assert api_error(_submit(client, assignment_id, answer), 400, "invalid")["fields"]["answer.pairs"] == [
        "Write 3 QA pairs; you wrote 2."
    ]
    assert not QAPair.objects.exists()


def test_closed_class_keyword_answers_must_use_the_scorers_words(six_image_task):
    client, assignment_id, images, _ = six_image_task
    answer = _good(images)
    answer["pairs"][1].update(
        question="What colour is the lantern room of the tallest lighthouse on the headland?",
        answer="The lantern room of the tallest lighthouse is bright red.",
        keyword_answer="crimsonish",
    )
    answer["pairs"][2].update(keyword_answer="perhaps")
    fields = api_error(_submit(client, assignment_id, answer), 400, "invalid")["fields"]
    assert "colour" in fields["answer.pairs.1.keyword_answer"][0]
    assert "“yes” or “no”" in fields["answer.pairs.2.keyword_answer"][0]
    assert not QAPair.objects.exists()
    answer["pairs"][1]["keyword_answer"] = "red"
    answer["pairs"][2]["keyword_answer"] = "no"
    assert _submit(client, assignment_id, answer).status_code == 200
    categories = list(QAPair.objects.order_by("id").values_list("question_category", flat=True))
    assert categories == ["YesNo", "color", "YesNo"]


def test_six_image_task_writes_three_webqa_pairs_with_their_images(six_image_task):
    client, assignment_id, images, group = six_image_task
    written = []

    def receive(*, qa_pairs, **_signal):
        written.extend(qa_pairs)

    pairs_written.connect(receive)
    try:
        response = _submit(client, assignment_id, _good(images))
    finally:
        pairs_written.disconnect(receive)
    assert response.status_code == 200, response.json()
    made = QAPair.objects.order_by("id")
    assert [p.pk for p in written] == [p.pk for p in made]
    assert {(p.family, p.split_kind, p.image_group_id, p.keyword_answer) for p in made} == {
        ("webqa", "image", group.pk, "yes")
    }
    assert [list(p.evidence.values_list("image_id", flat=True)) for p in made] == [
        [images[0].pk, images[1].pk],
        [images[2].pk],
        [images[3].pk],
    ]


# --- Text multi-hop -----------------------------------------------------------------------


@pytest.fixture
def text_task(rater, api_for):
    pool = snippets(4)
    batch = webqa_batch(kind="text_multihop_qa", payloads=[{"snippets": [s.pk for s in pool]}])
    client = api_for(rater)
    return client, _take(client, batch), pool


def _text_answer(cited, **extra):
    return {
        "snippets": [s.pk for s in cited],
        "question": "Which of the two bridges opened first, the stone one or the iron one?",
        "answer": "The stone bridge opened forty years before the iron one.",
        "keyword_answer": "the stone bridge",
        **extra,
    }


def test_text_pair_must_cite_two_snippets(text_task):
    client, assignment_id, pool = text_task
    response = _submit(client, assignment_id, _text_answer(pool[:1]))
    assert response.status_code == 400
    assert api_error(response, 400, "invalid")["fields"]["answer.snippets"] == [
        "Tick at least 2 snippets: the answer must combine facts from more than one. You ticked 1."
    ]
    assert not QAPair.objects.exists()


def test_a_researched_fact_needs_its_address(text_task):
    client, assignment_id, pool = text_task
    response = _submit(client, assignment_id, _text_answer(pool[:2], fact="The iron bridge was rebuilt in 1921."))
    assert api_error(response, 400, "invalid")["fields"]["answer.fact_url"] == [
        "Give the address of the page the fact comes from."
    ]
    response = _submit(client, assignment_id, _text_answer(pool[:2], fact="x", fact_url="not a url"))
    assert api_error(response, 400, "invalid")["fields"]["answer.fact_url"] == [
        "Give the full address of the page the fact comes from, starting with https://."
    ]
    assert not QAPair.objects.exists()


def test_text_pair_keeps_its_snippets_and_researched_fact(text_task):
    client, assignment_id, pool = text_task
    answer = _text_answer(pool[1:3], fact="The iron bridge was rebuilt in 1921.", fact_url="https://example.org/iron")
    response = _submit(client, assignment_id, answer)
    assert response.status_code == 200, response.json()
    pair = QAPair.objects.get()
    assert (pair.family, pair.split_kind, pair.question_category) == ("webqa", "text", "text")
    evidence = list(Evidence.objects.filter(qa_pair=pair).values_list("snippet_id", "fact", "url"))
    assert evidence == [
        (pool[1].pk, "", ""),
        (pool[2].pk, "", ""),
        (None, "The iron bridge was rebuilt in 1921.", "https://example.org/iron"),
    ]


def test_text_tasks_are_sets_of_four_similar_snippets_with_their_topic():
    for topic, title, text in DEMO_SNIPPETS:
        snippet(title=title, text=text, topic=topic)
    batch = Batch.objects.create(name="Text", kind="text_multihop_qa")
    assert make_text_tasks(batch=batch) == 3
    assert make_text_tasks(batch=batch) == 0  # every snippet is in a task already
    topics = {}
    for task in batch.tasks.all():
        titles = list(Snippet.objects.filter(pk__in=task.payload["snippets"]).values_list("topic", flat=True))
        assert len(set(titles)) == 1, f"task {task.pk} mixes {titles}"
        topics[titles[0]] = task.payload["topic"]
    assert set(topics) == {"bridges", "lighthouse", "market"}
    assert "Lenn" in topics["bridges"] and "lighthouse" in topics["lighthouse"] and "quay" in topics["market"]


def test_a_text_pair_carries_its_tasks_topic(rater, api_for):
    pool = snippets(4)
    batch = webqa_batch(
        kind="text_multihop_qa", payloads=[{"snippets": [s.pk for s in pool], "topic": "bridges of the Lenn"}]
    )
    client = api_for(rater)
    assert _submit(client, _take(client, batch), _text_answer(pool[:2])).status_code == 200
    # Releases read it from here: the pair's assignment's task.
    topic = QAPair.objects.values_list("assignment__task__payload__topic", flat=True).get()
    assert topic == "bridges of the Lenn"
    # ... and the release's record carries it.
    from releases.snapshot import take_snapshot
    from releases.tests.helpers import release

    QAPair.objects.update(state="accepted", keyword_answer="Lenn")
    from releases.models import ReleaseItem
    from tests.factories import UserFactory

    made = release(UserFactory(role="admin"), families=["webqa"])
    take_snapshot(release=made, progress=lambda **kwargs: None)
    (record,) = ReleaseItem.objects.filter(release=made).values_list("record", flat=True)
    assert record["topic"] == "bridges of the Lenn"
