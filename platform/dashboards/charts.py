"""Chart data that reads well however much or little there is: the time buckets are chosen
from the span of the data (hours for a day or two, days for a few months, weeks beyond),
every bucket in between is there (an empty one as zero), and labels are dates and times
as people write them, in the site's time zone."""

import json
from datetime import timedelta

from django.core.serializers.json import DjangoJSONEncoder
from django.utils import timezone

HOUR, DAY, WEEK = "hour", "day", "week"
# The widest span each bucket size is used for.
SPANS = [(timedelta(hours=48), HOUR), (timedelta(days=92), DAY)]
# Fewer buckets than this and the chart gets an empty one on each side, so that a lone
# bar stands in a chart rather than filling it.
FEWEST = 3


def bucket_size(moments):
    """The bucket size for data at ``moments`` (datetimes)."""
    if not moments:
        return HOUR
    span = max(moments) - min(moments)
    return next((size for widest, size in SPANS if span <= widest), WEEK)


def _start(moment, size, zone):
    local = moment.astimezone(zone)
    if size == HOUR:
        return local.replace(minute=0, second=0, microsecond=0)
    day = local.replace(hour=0, minute=0, second=0, microsecond=0)
    return day - timedelta(days=day.weekday()) if size == WEEK else day


def _step(start, size):
    if size == HOUR:
        return start + timedelta(hours=1)
    naive = start.replace(tzinfo=None) + timedelta(days=7 if size == WEEK else 1)
    return timezone.make_aware(naive, start.tzinfo)  # a day is not always 24 hours


def label(start, size):
    """A bucket as people name it: "Mon 30 Nov, 14:00", "Mon 30 Nov" or "Week of 23 Nov 2026"."""
    if size == HOUR:
        return f"{start:%a} {start.day} {start:%b}, {start:%H:%M}"
    if size == DAY:
        return f"{start:%a} {start.day} {start:%b}"
    return f"Week of {start.day} {start:%b %Y}"


def time_series(counts, *, names=None, empty="count"):
    """Chart data from ``{(moment, key): n}`` (moments at least as fine as an hour):
    ``{labels, datasets, bucket}`` with one dataset per key, named by ``names`` (a key
    without a name, or ``None``, is shown as ``empty``)."""
    names = names or {}
    zone = timezone.get_current_timezone()
    size = bucket_size([moment for moment, _key in counts])
    keys = sorted({key for _moment, key in counts}, key=lambda key: str(names.get(key, key)))
    sums = {}
    for (moment, key), n in counts.items():
        start = _start(moment, size, zone)
        sums[start, key] = sums.get((start, key), 0) + n
    starts = sorted({start for start, _key in sums})
    if starts:
        buckets = [starts[0]]
        while buckets[-1] < starts[-1]:
            buckets.append(_step(buckets[-1], size))
        if len(buckets) < FEWEST:
            before = _start(buckets[0] - timedelta(minutes=1), size, zone)
            buckets = [before, *buckets, _step(buckets[-1], size)]
    else:
        buckets = []
    return {
        "bucket": size,
        "labels": [label(start, size) for start in buckets],
        "datasets": [
            {
                "label": str(names.get(key, key if key is not None else empty)),
                "data": [sums.get((start, key), 0) for start in buckets],
            }
            for key in keys
        ],  # fmt: skip
    }


def as_json(data):
    """Chart data for a ``<script type="application/json">`` element."""
    return json.dumps(data, cls=DjangoJSONEncoder)
