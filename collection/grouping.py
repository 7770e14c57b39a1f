"""Pairing image-filter triples into six-image groups by how alike their labels are.

Each label becomes a TF-IDF vector over its words (lower-cased, plural ``s`` dropped)
and its character trigrams, so "red barns" and "old red barn" come out close and
"lighthouse" and "lighthouses" match. Pairs of triples are taken greedily, most
similar first, when their similarity reaches ``settings.GROUPING_MIN_SIMILARITY`` and
they share no image; each triple joins at most one group. Triples left over wait for a
later run, when more have arrived. Each group becomes one six-image QA task.

Only triples whose three images are all cleared by review are grouped: an image rejected
after its filter task was done keeps its triple out of every group.
"""

import math
import re
from collections import Counter

import numpy as np
from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef

from assets.models import Asset
from corpus.models import ImageGroup, ImageSource, ImageTriple
from hits.models import Assignment, Batch

_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "the",
        "of",
        "in",
        "on",
        "at",
        "to",
        "for",
        "with",
        "by",
        "from",
        "or",
        "is",
        "are",
        "its",
        "their",
        "all",
    ]
)


def _features(label):
    words = [
        w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in _WORD.findall(label.lower())
    ]
    words = [w for w in words if w not in _STOP]
    features = Counter(f"w:{w}" for w in words)
    for word in words:
        padded = f" {word} "
        features.update(f"c:{padded[i : i + 3]}" for i in range(len(padded) - 2))
    return features


def similarity_matrix(labels):
    """Cosine similarities (n × n, 0–1) of the labels' TF-IDF vectors."""
    docs = [_features(label) for label in labels]
    vocabulary = {}
    for doc in docs:
        for feature in doc:
            vocabulary.setdefault(feature, len(vocabulary))
    matrix = np.zeros((len(docs), max(1, len(vocabulary))))
    document_frequency = Counter(feature for doc in docs for feature in doc)
    for row, doc in enumerate(docs):
        for feature, count in doc.items():
            idf = math.log((1 + len(docs)) / (1 + document_frequency[feature])) + 1
            weight = (2.0 if feature.startswith("w:") else 1.0) * (1 + math.log(count)) * idf
            matrix[row, vocabulary[feature]] = weight
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    matrix = np.divide(matrix, norms, out=np.zeros_like(matrix), where=norms > 0)
    return np.clip(matrix @ matrix.T, 0.0, 1.0)


def pair_up(triples, *, threshold):
    """``[(a, b, similarity)]``: pairs of ``triples`` (each with ``.label`` and ``.image_ids``),
    most similar first, every triple used once, no image twice in a pair."""
    if len(triples) < 2:
        return []
    similarity = similarity_matrix([t.label for t in triples])
    candidates = [
        (similarity[i, j], i, j)
        for i in range(len(triples))
        for j in range(i + 1, len(triples))
        if similarity[i, j] >= threshold and not (triples[i].image_ids & triples[j].image_ids)
    ]
    candidates.sort(key=lambda c: (-c[0], c[1], c[2]))
    used, pairs = set(), []
    for score, i, j in candidates:
        if i in used or j in used:
            continue
        used.update((i, j))
        pairs.append((triples[i], triples[j], float(score)))
    return pairs


class NotASixImageBatch(ValueError):
    pass


def group_triples(*, batch_id, threshold=None):
    """Groups the waiting triples and adds a six-image QA task per group to the batch.
    Returns the number of groups made. Runs can overlap: the triples are locked."""
    from hits.services import add_tasks

    from .kinds.six_image_qa import SixImageQA

    threshold = settings.GROUPING_MIN_SIMILARITY if threshold is None else threshold
    with transaction.atomic():
        batch = Batch.objects.select_for_update().get(pk=batch_id)
        if batch.kind != SixImageQA.name:
            raise NotASixImageBatch(f"Batch {batch.name} is for {batch.kind} tasks, not six-image QA.")
        # Triples whose filter task was rejected, or with an image no longer cleared, are
        # not material; the rest wait until grouped.
        uncleared = ImageSource.objects.filter(triples=OuterRef("pk")).exclude(
            asset__review_state=Asset.ReviewState.CLEARED
        )
        waiting = list(
            ImageTriple.objects.select_for_update(of=("self",))
            .filter(group__isnull=True)
            .exclude(assignment__state__in=[Assignment.State.REJECTED])
            .exclude(Exists(uncleared))
            .order_by("id")
        )
        images = {}
        for triple_id, image_id in ImageTriple.images.through.objects.filter(
            imagetriple_id__in=[t.pk for t in waiting]
        ).values_list("imagetriple_id", "imagesource_id"):
            images.setdefault(triple_id, set()).add(image_id)
        for triple in waiting:
            triple.image_ids = images.get(triple.pk, set())
        pairs = pair_up(waiting, threshold=threshold)
        groups = []
        for first, second, score in pairs:
            label = first.label if first.label.lower() == second.label.lower() else f"{first.label} / {second.label}"
            group = ImageGroup.objects.create(label=label[:420], similarity=round(score, 4))
            ImageTriple.objects.filter(pk__in=[first.pk, second.pk]).update(group=group)
            groups.append(group)
        if groups:
            tasks = add_tasks(batch=batch, payloads=[{"group": group.pk} for group in groups])
            for group, task in zip(groups, tasks, strict=True):
                group.task = task
            ImageGroup.objects.bulk_update(groups, ["task"])
    return len(groups)
