"""Reference answers for test items: for each QA pair chosen as a test candidate, five
different workers each write the answer as a full sentence, and one of them also the
keyword answer (the answer in as few words as carry its meaning)."""

from django.db import transaction

from accounts.models import Role
from corpus.models import QAPair, ReferenceAnswer, ReferenceSet
from hits import services as hits

from .batches import batch_for
from .errors import NotAllowed

WRITERS_WANTED = 5


@transaction.atomic
def choose_for_references(*, qa_pairs, actor):
    """Marks accepted pairs as test candidates: each gets a task wanting five writers.
    Pairs already chosen, or not accepted, are skipped. Returns the new sets."""
    if not actor.has_role(Role.ADMIN):
        raise NotAllowed("Only admins choose test candidates.")
    from .kinds.references import References

    created = []
    for pair in qa_pairs:
        if pair.state != QAPair.State.ACCEPTED or ReferenceSet.objects.filter(qa_pair=pair).exists():
            continue
        batch = batch_for(kind=References.name, family=pair.family)
        if batch is None:
            continue
        (task,) = hits.add_tasks(batch=batch, payloads=[{"qa_pair": pair.pk}], assignments_wanted=WRITERS_WANTED)
        created.append(ReferenceSet.objects.create(qa_pair=pair, task=task, chosen_by=actor))
    return created


def locked_set(*, task_id):
    return ReferenceSet.objects.select_for_update().get(task_id=task_id)


def record_answer(*, assignment, answer, keyword):
    """Stores one writer's sentence; the first keyword answer given becomes the set's.
    Once all five are in, the keyword answer is copied to a pair that has none."""
    reference_set = locked_set(task_id=assignment.task_id)
    written = ReferenceAnswer.objects.create(
        reference_set=reference_set, assignment=assignment, worker_id=assignment.worker_id, answer=answer
    )
    if keyword and not reference_set.keyword_answer:
        reference_set.keyword_answer, reference_set.keyword_by_id = keyword, assignment.worker_id
        reference_set.save(update_fields=["keyword_answer", "keyword_by"])
    if reference_set.answers.count() >= WRITERS_WANTED and reference_set.keyword_answer:
        QAPair.objects.filter(pk=reference_set.qa_pair_id, keyword_answer="").update(
            keyword_answer=reference_set.keyword_answer
        )
    return written
