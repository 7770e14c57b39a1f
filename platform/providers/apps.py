from django.apps import AppConfig


class ProvidersConfig(AppConfig):
    """Recruiting workers from Prolific and Mechanical Turk, and settling their pay there."""

    name = "providers"
    verbose_name = "Recruitment providers"

    def ready(self):
        from hits.signals import assignment_decided, bonus_granted

        from . import receivers, registry

        registry.autodiscover()
        assignment_decided.connect(receivers.assignment_decided, dispatch_uid="providers.assignment_decided")
        bonus_granted.connect(receivers.bonus_granted, dispatch_uid="providers.bonus_granted")
