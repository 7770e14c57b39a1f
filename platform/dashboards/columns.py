"""Columns that apps above the dashboards add to the workers table.

The dashboards know assignments, pay and review; numbers owned by a higher app (e.g.
validation's agreement rate) are contributed by that app from its ``AppConfig.ready``,
so the dashboards never import it. A column is a database expression over ``User``
rows: it is sorted and paginated in the database with the rest of the table.
"""

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class WorkerColumn:
    name: str  # the annotation, and the CSV header
    label: str  # the table's header
    sort: str  # the ``?sort=`` value
    expression: Any  # a callable returning the annotation's expression
    descending: bool = False
    percent: bool = True


_worker_columns: dict[str, WorkerColumn] = {}


def add_worker_column(column):
    _worker_columns[column.name] = column
    return column


def worker_columns():
    return list(_worker_columns.values())
