"""The task kinds this server knows.

A kind is a class in the ``kinds`` package of the app whose work it is, decorated with
``@kind``; the app's ``AppConfig.ready`` calls ``autodiscover(self)``, which imports every
module of that package, so each kind registers itself when its app loads. Nothing else
lists kinds: what other code needs to know about one, it asks the kind (see
``hits.kinds.base.TaskKind``).
"""

import importlib
import pkgutil

from config.errors import DomainError

_kinds = {}


class UnknownKind(DomainError):
    """A batch names a kind this server does not have (e.g. one since removed)."""

    status = 409
    code = "unknown_kind"


def autodiscover(app_config):
    """Imports every module of ``<app>.kinds``, whose ``@kind`` classes register themselves."""
    try:
        package = importlib.import_module(f"{app_config.name}.kinds")
    except ModuleNotFoundError as missing:
        if missing.name != f"{app_config.name}.kinds":
            raise
        return
    for module in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{package.__name__}.{module.name}")


def kind(cls):
    """Class decorator: registers one instance of the kind class it decorates."""
    register(cls())
    return cls


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


def writing(split_kind):
    """A kind that writes QA pairs of ``split_kind`` (kinds sharing a split kind declare
    the same treatment of its pairs: a contract test checks it), or None (e.g. pairs
    written by a kind since removed: they get no category and no negatives)."""
    return next((k for k in all_kinds() if k.split_kind and k.split_kind == split_kind), None)


def split_kinds(test):
    """The split kinds written by the kinds for which ``test(kind)`` holds, sorted."""
    return tuple(sorted({k.split_kind for k in _kinds.values() if k.split_kind and test(k)}))
