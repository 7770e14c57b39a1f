"""What generation does when other apps' events happen (connected in ``apps.py``)."""


def count_decision(**signal):
    from . import services

    services.count_decision(**signal)
