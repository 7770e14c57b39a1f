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
