"""What validation adds to the staff dashboards: each worker's agreement with the
validators' majority, in the workers table (sortable, and in its CSV)."""

from django.db.models import ExpressionWrapper, F, FloatField
from django.db.models.functions import NullIf

from dashboards.columns import WorkerColumn, add_worker_column


def agreement_rate():
    return ExpressionWrapper(
        F("quality__judgements_agreeing") * 1.0 / NullIf(F("quality__judgements_decided"), 0), FloatField()
    )


def contribute():
    add_worker_column(
        WorkerColumn(name="agreement_rate", label="Validation agreement", sort="agreement", expression=agreement_rate)
    )
