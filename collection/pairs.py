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


def evidence_of(qa_pair):
    """The pair's evidence in order, each as what the page shows: a screenshot, a pool
    image with its title and description, a snippet, or a researched fact."""
    from .models import Evidence

    rows = Evidence.objects.filter(qa_pair=qa_pair).select_related("screen", "image", "snippet", "step")
    shown = []
    for piece in rows.order_by("position"):
        if piece.screen_id:
            shown.append({"kind": "screen", "asset_id": piece.screen.asset_id, "title": piece.screen.title,
                          "url": piece.screen.url, "note": piece.note})  # fmt: skip
        elif piece.image_id:
            shown.append({"kind": "image", "asset_id": piece.image.asset_id, "title": piece.image.title,
                          "text": piece.image.description, "note": piece.note})  # fmt: skip
        elif piece.snippet_id:
            shown.append({"kind": "snippet", "title": piece.snippet.title, "text": piece.snippet.text,
                          "url": piece.snippet.url, "note": piece.note})  # fmt: skip
        else:
            shown.append({"kind": "fact", "text": piece.fact, "url": piece.url, "note": piece.note})
    return shown


def summary_of(assignment):
    """The QA pairs an assignment wrote, with their evidence, as spot checks show them."""
    from .models import QAPair

    summary = []
    for pair in QAPair.objects.filter(assignment=assignment).order_by("id"):
        shown = evidence_of(pair)
        summary.append(
            {
                "question": pair.question,
                "answer": pair.answer,
                "keyword_answer": pair.keyword_answer,
                "assets": [
                    {"asset": piece["asset_id"], "title": piece["title"] or piece.get("url", "")}
                    for piece in shown
                    if piece["kind"] in ("screen", "image")
                ],
                "snippets": [{"title": p["title"], "text": p["text"]} for p in shown if p["kind"] == "snippet"],
                "facts": [{"text": p["text"], "url": p["url"]} for p in shown if p["kind"] == "fact"],
                "state": pair.get_state_display(),
            }
        )
    return summary
