"""Pages for admins about the catalogue sites' navigation graphs: every site's figures,
one site's pages and edges, and a button that rebuilds a graph."""

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from accounts.models import Role
from accounts.permissions import role_required
from corpus import services as corpus_services
from corpus.models import Site
from corpus.navigation import MIN_TRANSITIONS

from .graph_serializers import site_graph, sites_with_graph_figures

ADMINS_ONLY = "Only admins can see the sites' navigation graphs."


@role_required(Role.ADMIN, ADMINS_ONLY)
def sites(request):
    return render(
        request, "collection/sites.html", {"sites": sites_with_graph_figures(), "min_transitions": MIN_TRANSITIONS}
    )


@role_required(Role.ADMIN, ADMINS_ONLY)
def site_graph_page(request, site_id):
    site = get_object_or_404(Site.objects.select_related("category"), pk=site_id)
    return render(
        request, "collection/site_graph.html", {"graph": site_graph(site), "min_transitions": MIN_TRANSITIONS}
    )


@require_POST
@role_required(Role.ADMIN, ADMINS_ONLY)
def rebuild_site_graph(request, site_id):
    site = get_object_or_404(Site, pk=site_id)
    corpus_services.request_rebuild(site=site)
    messages.success(
        request, f"A rebuild of {site.name}'s graph is queued; reload this page in a minute to see the new graph."
    )
    return redirect("collection:site-graph", site_id=site.pk)
