"""What happens after a worker writes QA pairs, whatever the kind of task.

Other apps subscribe with ``on_pairs_written`` (validation, for one, queues every new
pair for checking); each kind calls ``pairs_written`` inside its submit transaction,
once the pairs and their evidence exist.
"""

_hooks = []


def on_pairs_written(hook):
    """Registers ``hook(qa_pairs)``; called inside the transaction that wrote them."""
    if hook not in _hooks:
        _hooks.append(hook)
    return hook


def pairs_written(qa_pairs):
    qa_pairs = list(qa_pairs)
    for hook in _hooks:
        hook(qa_pairs)


def summary_of(assignment):
    """The QA pairs an assignment wrote, with their evidence, as spot checks show them."""
    from .models import QAPair

    pairs = QAPair.objects.filter(assignment=assignment).prefetch_related(
        "evidence__screen", "evidence__image", "evidence__snippet"
    )
    summary = []
    for pair in pairs.order_by("id"):
        assets, snippets, facts = [], [], []
        for evidence in pair.evidence.all():
            if evidence.screen_id:
                assets.append(
                    {"asset": evidence.screen.asset_id, "title": evidence.screen.title or evidence.screen.url}
                )
            elif evidence.image_id:
                assets.append({"asset": evidence.image.asset_id, "title": evidence.image.title})
            elif evidence.snippet_id:
                snippets.append({"title": evidence.snippet.title, "text": evidence.snippet.text})
            else:
                facts.append({"text": evidence.fact, "url": evidence.url})
        summary.append(
            {
                "question": pair.question,
                "answer": pair.answer,
                "keyword_answer": pair.keyword_answer,
                "assets": assets,
                "snippets": snippets,
                "facts": facts,
                "state": pair.get_state_display(),
            }
        )
    return summary
