from django import template

from validation import selectors

register = template.Library()


@register.inclusion_tag("training/_status.html")
def qualification_status(user):
    """The worker's qualification tests and where they stand, for their home page."""
    return {"tests": selectors.statuses_for(worker=user)}
