from datetime import datetime

from celery import shared_task

from .models import Site
from .navigation import rebuild


@shared_task(name="corpus.rebuild_site_graph")
def rebuild_site_graph(site_id, requested_at=None):
    """Rebuilds a site's navigation graph, unless a rebuild that started after this was
    asked for has already run (clearing a trace's screens asks once per screen)."""
    site = Site.objects.filter(pk=site_id).first()
    if site is None:
        return None
    if requested_at and site.graph_built_at and site.graph_built_at >= datetime.fromisoformat(requested_at):
        return {"site": site_id, "skipped": True}
    rebuild(site)
    return {"site": site_id, "pages": site.nav_pages.count(), "edges": site.nav_edges.count()}
