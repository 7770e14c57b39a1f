"""Which yes/no and choice questions a model can answer without looking at the sources.

WebQA's test split holds the ``YesNo`` and ``choose`` questions that are hard for a
model which reads only the question (§4.1 of the paper: "we trained models on 10 random
train-test splits and consistently difficult samples across splits were placed in the
test set"). Our version, fixed by the release's seed:

- The baseline is a bag-of-words logistic regression (scikit-learn) over the question's
  words, one per class. What it predicts is the question's *label*: ``yes`` or ``no`` for
  a yes/no question; for a choice ("Which is taller, the tower or the bridge?"),
  ``first`` or ``second``: which side of the question's last "or" the keyword answer's
  words appear on. A question whose label cannot be read that way (a yes/no keyword
  that is neither, a choice without "or", an answer on both sides) takes no part.
- Ten rounds, each a seeded random halving of the class: a model fitted on each half
  predicts the other, so every question is predicted once per round by a model that
  never saw it. A question predicted wrongly in all ten rounds is *consistently
  difficult*: its wording points to the other answer, whatever the training data.
- A class with fewer than ``MIN_ITEMS`` labelled questions, or a single label, is too
  small to learn a shortcut from: none of it is difficult.

Fitting is deterministic (a fixed solver on data in a fixed order), so the same pairs and
seed always give the same difficult questions.
"""

import random
import re

MIN_ITEMS = 20
ROUNDS = 10
_WORD = re.compile(r"[a-z0-9]+")
_FILLER = frozenset({"a", "an", "the", "of", "one", "is", "it", "its", "are", "was", "which", "what"})
_LAST_OR = re.compile(r"^(.*)\bor\b(.*)$", re.DOTALL)


def _words(text):
    return [word for word in _WORD.findall(text.lower()) if word not in _FILLER]


def label_of(category, question, keyword):
    """What the baseline learns to predict for one question, or None."""
    words = _words(keyword)
    if category == "YesNo":
        found = {word for word in words if word in ("yes", "no")}
        return found.pop() if len(found) == 1 else None
    if category == "choose":
        split = _LAST_OR.match(question.lower())
        if split is None or not words:
            return None
        before, after = set(_words(split.group(1))), set(_words(split.group(2)))
        first, second = len(before.intersection(words)), len(after.intersection(words))
        if first == second:
            return None
        return "first" if first > second else "second"
    return None


def consistently_difficult(items, *, seed, rounds=ROUNDS):
    """The ids of ``items`` (``(id, question, label)`` of one class) that the
    question-only baseline gets wrong in every round."""
    items = sorted(items)
    if len(items) < MIN_ITEMS or len({label for _, _, label in items}) < 2:
        return set()
    wrong = dict.fromkeys((pair_id for pair_id, _, _ in items), 0)
    for number in range(rounds):
        order = list(items)
        random.Random(f"difficulty:{seed}:{number}").shuffle(order)
        half = len(order) // 2
        for fitted_on, predicted in ((order[:half], order[half:]), (order[half:], order[:half])):
            guesses = _predict(fitted_on, [question for _, question, _ in predicted])
            for (pair_id, _, label), guess in zip(predicted, guesses, strict=True):
                wrong[pair_id] += guess != label
    return {pair_id for pair_id, count in wrong.items() if count == rounds}


def _predict(fitted_on, questions):
    """The labels a bag-of-words logistic regression fitted on ``fitted_on`` gives
    ``questions``; a half with one label only predicts that label."""
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.linear_model import LogisticRegression

    labels = [label for _, _, label in fitted_on]
    if len(set(labels)) < 2:
        return [labels[0]] * len(questions)
    vectorizer = CountVectorizer(token_pattern=r"[a-z0-9]+", binary=True)
    features = vectorizer.fit_transform([question for _, question, _ in fitted_on])
    model = LogisticRegression(solver="liblinear", random_state=0)
    model.fit(features, labels)
    return list(model.predict(vectorizer.transform(questions)))
