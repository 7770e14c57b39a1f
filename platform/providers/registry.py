"""The recruitment providers this server knows (Prolific, Mechanical Turk, …).

An adapter is one class in one module of ``providers.adapters``, decorated with
``@provider``; the app's ``AppConfig.ready`` imports every module of that package, so
each adapter registers itself. A batch names its provider in
``kind_settings["provider"]["name"]``; nothing else lists providers.
"""

import importlib
import pkgutil

from .errors import NotSetUp

_providers = {}


def autodiscover():
    from . import adapters

    for module in pkgutil.iter_modules(adapters.__path__):
        importlib.import_module(f"{adapters.__name__}.{module.name}")


def provider(cls):
    """Class decorator: registers one instance of the adapter class it decorates."""
    adapter = cls()
    if not adapter.name:
        raise ValueError(f"{cls.__name__} has no name.")
    if adapter.name in _providers and type(_providers[adapter.name]) is not cls:
        raise ValueError(f"Two providers are named {adapter.name!r}.")
    _providers[adapter.name] = adapter
    return cls


def get(name):
    try:
        return _providers[name]
    except KeyError:
        raise NotSetUp(f"There is no recruitment provider named {name!r}.") from None


def all_providers():
    return sorted(_providers.values(), key=lambda adapter: adapter.name)
