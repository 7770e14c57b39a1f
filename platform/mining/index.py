"""A mining run's search index over the snippet and image pools.

Built once per run, from the pools as the run saw them when it was planned (snippets and
images up to the ids it recorded; images cleared by review), and written to
``MINING_INDEX_DIR/<run's index key>/``. Every chunk task of the run loads it from there
(memory-mapped, so the processes of one machine share its pages) and keeps it for the
next chunk; a worker on a machine without the folder builds the same index again.
"""

import json
import logging
import os
import re
import shutil
from array import array
from pathlib import Path

import bm25s
import numpy as np
from bm25s.stopwords import STOPWORDS_EN
from django.conf import settings

from assets.models import Asset
from corpus.models import ImageSource, Snippet

# bm25s sets its own logger to DEBUG on import, which floods a worker's log.
logging.getLogger("bm25s").setLevel(logging.WARNING)

_TERM = re.compile(r"\b\w\w+\b")
STOPWORDS = frozenset(STOPWORDS_EN) | {"what", "which", "who", "whom", "how", "many", "much", "does", "did", "do"}
FORMAT = 1  # bump when the files' layout changes, so an old folder is never read


def terms(text):
    """The index terms of ``text``: lower-cased words of two or more characters, no stopwords."""
    return [term for term in _TERM.findall((text or "").lower()) if term not in STOPWORDS]


def hashes(hex_values):
    """64-bit perceptual hashes (hex strings) as unsigned integers; 0 for a missing one."""
    return np.array([int(value, 16) if value else 0 for value in hex_values], dtype=np.uint64)


def hamming(values, value):
    """Differing bits between each hash in ``values`` and ``value``."""
    return np.bitwise_count(values ^ np.uint64(value))


def best(scores, k):
    """Positions of the ``k`` highest scores above zero, highest first, ties in position
    order (the same answer on every run).

    Only the documents that share a term with the query are ranked: most score zero, and
    selecting among them is what makes ``np.argpartition`` slow (hundreds of
    milliseconds on a 540,000-document pool, against a few here)."""
    candidates = np.flatnonzero(scores > 0)
    if len(candidates) > k:
        values = scores[candidates]
        threshold = values[np.argpartition(-values, k - 1)[:k]].min()
        candidates = candidates[values >= threshold]  # every tie at the threshold, for a fair cut below
    order = np.lexsort((candidates, -scores[candidates]))[:k]
    return candidates[order]


class Pool:
    """BM25 over one pool's documents, with their ids (and, for images, perceptual hashes)."""

    def __init__(self, retriever, ids, phashes=None):
        self.retriever = retriever
        self.ids = ids
        self.phashes = phashes

    def __len__(self):
        return len(self.ids)

    def search(self, queries, *, k):
        """For each list of query terms, up to ``k`` ``(position, score)`` pairs, best
        first, with a score above zero (the document shares a term with the query)."""
        results = [[] for _ in queries]
        k = min(k, len(self))
        if self.retriever is None or k == 0:
            return results
        for number, query in enumerate(queries):
            if not query:
                continue
            scores = self.scores(query)
            results[number] = [(int(p), float(scores[p])) for p in best(scores, k)]
        return results

    def scores(self, query):
        """The BM25 score of every document for ``query`` (terms, repeats counting again).

        The same sums, in the same order and precision, as ``bm25s.BM25.get_scores``,
        which adds each term's postings with ``np.add.at``: that is some fifty times slower
        than plain indexed addition, which gives the same result here because a term's
        postings name each document once. At full WebQA scale common terms have hundreds
        of thousands of postings, and this is most of a mining run's time."""
        retriever = self.retriever
        matrix = retriever.scores
        data, indices, indptr = matrix["data"], matrix["indices"], matrix["indptr"]
        ids = np.asarray(retriever.get_tokens_ids(query), dtype=np.dtype(retriever.int_dtype))
        scores = np.zeros(matrix["num_docs"], dtype=np.dtype(retriever.dtype))
        for start, end in zip(indptr[ids], indptr[ids + 1], strict=True):
            scores[indices[start:end]] += data[start:end]
        if retriever.nonoccurrence_array is not None:
            scores += retriever.nonoccurrence_array[ids].sum()
        return scores

    def save(self, folder):
        folder.mkdir(parents=True)
        np.save(folder / "ids.npy", self.ids)
        if self.phashes is not None:
            np.save(folder / "phashes.npy", self.phashes)
        if self.retriever is not None:
            self.retriever.save(str(folder / "bm25"), show_progress=False)

    @classmethod
    def load(cls, folder):
        ids = np.load(folder / "ids.npy", mmap_mode="r")
        phashes = np.load(folder / "phashes.npy", mmap_mode="r") if (folder / "phashes.npy").exists() else None
        retriever = None
        if (folder / "bm25").exists():
            retriever = bm25s.BM25.load(str(folder / "bm25"), mmap=True, show_progress=False)
        return cls(retriever, ids, phashes)

    @classmethod
    def build(cls, rows, *, with_phashes=False):
        """``rows``: ``(id, text)`` or ``(id, text, phash)``, in id order, streamed."""
        vocabulary, documents, ids, phash_values = {}, [], array("q"), []
        for row in rows:
            ids.append(row[0])
            documents.append(array("i", (vocabulary.setdefault(term, len(vocabulary)) for term in terms(row[1]))))
            if with_phashes:
                phash_values.append(row[2])
        ids = np.frombuffer(ids, dtype=np.int64) if ids else np.zeros(0, dtype=np.int64)
        phashes = hashes(phash_values) if with_phashes else None
        retriever = None
        if documents:
            # Every document needs a term for BM25's length normalisation: "" stands for none.
            empty = vocabulary.setdefault("", len(vocabulary))
            documents = [document or array("i", [empty]) for document in documents]
            retriever = bm25s.BM25()
            retriever.index((documents, vocabulary), show_progress=False)
        return cls(retriever, ids, phashes)


class RunIndex:
    """The snippet and image pools of one run."""

    def __init__(self, snippets, images):
        self.snippets = snippets
        self.images = images


def folder_of(run):
    return Path(settings.MINING_INDEX_DIR) / f"run-{run.pk}-{run.index_key}"


def build(run):
    """Builds the run's index from the database and writes it to its folder."""
    snippet_rows = (
        (pk, f"{title} {text}", None)
        for pk, title, text in Snippet.objects.filter(pk__lte=run.snippet_max_id or 0)
        .order_by("pk")
        .values_list("pk", "title", "text")
        .iterator(chunk_size=5000)
    )
    image_rows = (
        (pk, f"{title} {description}", phash)
        for pk, title, description, phash in ImageSource.objects.filter(
            pk__lte=run.image_max_id or 0, asset__review_state=Asset.ReviewState.CLEARED
        )
        .order_by("pk")
        .values_list("pk", "title", "description", "asset__phash")
        .iterator(chunk_size=5000)
    )
    index = RunIndex(Pool.build(snippet_rows), Pool.build(image_rows, with_phashes=True))
    _write(folder_of(run), index)
    return index


def _write(folder, index):
    scratch = folder.with_name(f"{folder.name}.{os.getpid()}.tmp")
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    index.snippets.save(scratch / "snippets")
    index.images.save(scratch / "images")
    (scratch / "format.json").write_text(json.dumps({"format": FORMAT}))
    try:
        scratch.rename(folder)  # atomic: readers see a whole index or none
    except OSError:  # another process of this machine wrote it first; theirs is the same
        shutil.rmtree(scratch, ignore_errors=True)


def load(run):
    """The run's index from its folder, or None when this machine has none."""
    folder = folder_of(run)
    try:
        if json.loads((folder / "format.json").read_text())["format"] != FORMAT:
            return None
    except (OSError, ValueError, KeyError):
        return None
    return RunIndex(Pool.load(folder / "snippets"), Pool.load(folder / "images"))


_loaded = {}


def for_run(run):
    """The run's index: this process's copy, else the one on disk, else built now."""
    key = folder_of(run).name
    if key not in _loaded:
        _loaded.clear()  # one run at a time per process: let the last run's index go
        _loaded[key] = load(run) or build(run)
    return _loaded[key]


def remove(run):
    """Deletes the run's index from this machine once the run no longer needs it."""
    _loaded.pop(folder_of(run).name, None)
    shutil.rmtree(folder_of(run), ignore_errors=True)
