"""The task kinds Trailmark knows. Adding a kind is one line in ``KIND_CLASSES``."""

from django.utils.module_loading import import_string

from config.errors import DomainError

KIND_CLASSES = [
    "hits.kinds.demo_question.DemoQuestion",
    "collection.kinds.single_screen_qa.SingleScreenQA",
    "collection.kinds.multi_screen_qa.MultiScreenQA",
    "collection.kinds.trace_qa.TraceQA",
    "collection.kinds.image_filter.ImageFilter",
    "collection.kinds.six_image_qa.SixImageQA",
    "collection.kinds.text_multihop_qa.TextMultihopQA",
    "validation.kinds.validation.Validation",
    "validation.kinds.references.References",
]

_kinds = {}


class UnknownKind(DomainError):
    """A batch names a kind this server does not have (e.g. one since removed)."""

    status = 409
    code = "unknown_kind"


def load():
    _kinds.clear()
    for path in KIND_CLASSES:
        register(import_string(path)())


def register(kind):
    if not kind.name:
        raise ValueError(f"{type(kind).__name__} has no name.")
    if kind.name in _kinds and type(_kinds[kind.name]) is not type(kind):
        raise ValueError(f"Two task kinds are named {kind.name!r}.")
    _kinds[kind.name] = kind
    return kind


def unregister(name):
    _kinds.pop(name, None)


def get(name):
    try:
        return _kinds[name]
    except KeyError:
        raise UnknownKind(f"There is no task kind named {name!r}.") from None


def all_kinds():
    return sorted(_kinds.values(), key=lambda kind: kind.name)


def choices():
    return [(kind.name, kind.title) for kind in all_kinds()]
