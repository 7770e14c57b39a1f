"""Catalogue sites' navigation graphs as admins look at them: the figures of every site,
one site's pages and edges (for its page and ``GET /api/v1/sites/{id}/graph/``), and
asking for a rebuild. The graph itself is built by ``corpus.navigation``."""

from dataclasses import dataclass

from django.db.models import Count, Exists, IntegerField, OuterRef, Prefetch, Subquery
from django.db.models.functions import Coalesce
from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from corpus.models import NavEdge, NavPage, Site
from corpus.navigation import MIN_TRANSITIONS, page_url


def _counted(pages_or_edges):
    """How many rows of ``pages_or_edges`` (filtered on ``site=OuterRef("pk")``) each site has."""
    rows = pages_or_edges.order_by().values("site").annotate(n=Count("pk")).values("n")
    return Coalesce(Subquery(rows, output_field=IntegerField()), 0)


def sites_with_graph_figures():
    """Every catalogue site, active or not, with the size of its graph."""
    pages = NavPage.objects.filter(site=OuterRef("pk"))
    return (
        Site.objects.select_related("category")
        .annotate(
            page_count=_counted(pages),
            edge_count=_counted(NavEdge.objects.filter(site=OuterRef("pk"))),
            unreachable_count=_counted(pages.filter(depth__isnull=True)),
            target_count=_counted(pages.filter(depth__gte=MIN_TRANSITIONS)),
            # Only the homepage is zero clicks from itself, and only when it was recorded.
            homepage_recorded=Exists(pages.filter(depth=0)),
        )
        .order_by("category__position", "category__name", "name")
    )


@dataclass
class SiteGraph:
    """One site's stored graph. Each page carries ``label`` (``<host>_<number>``, its id in
    releases) and its ``edges_out``, whose ``destination`` is the page in ``pages``."""

    site: Site
    pages: list
    homepage: NavPage | None

    @property
    def homepage_id(self):
        return self.homepage.label if self.homepage else None

    @property
    def edges(self):
        return [edge for page in self.pages for edge in page.edges_out.all()]

    @property
    def unreachable(self):
        return [page for page in self.pages if page.depth is None]

    @property
    def targets(self):
        """Pages far enough from the homepage to be a navigation episode's target."""
        return [page for page in self.pages if page.depth is not None and page.depth >= MIN_TRANSITIONS]

    @property
    def clicked_edges(self):
        return [edge for edge in self.edges if edge.clicked]


def site_graph(site):
    edges = NavEdge.objects.order_by("destination__number", "text")
    pages = list(
        NavPage.objects.filter(site=site)
        .select_related("step__screen")
        .prefetch_related(Prefetch("edges_out", queryset=edges))
        .order_by("number")
    )
    by_id = {page.pk: page for page in pages}
    for page in pages:
        page.label = f"{site.host}_{page.number}"
    for page in pages:
        for edge in page.edges_out.all():
            edge.source, edge.destination = page, by_id[edge.destination_id]
    home = page_url(site.url)
    return SiteGraph(site=site, pages=pages, homepage=next((page for page in pages if page.url == home), None))


class GraphPageSerializer(serializers.Serializer):
    id = serializers.CharField(source="label", help_text="`<host>_<number>`, the page's id in releases.")
    number = serializers.IntegerField()
    url = serializers.URLField()
    title = serializers.CharField()
    depth = serializers.IntegerField(
        allow_null=True, help_text="Clicks from the homepage on a shortest path; null when unreachable."
    )
    traces = serializers.IntegerField(help_text="Recorded traces that visited the page.")
    screenshot = serializers.SerializerMethodField(help_text="The screenshot that shows the page.")

    @extend_schema_field(serializers.URLField(allow_null=True))
    def get_screenshot(self, page):
        if page.step is None:
            return None
        address = reverse("assets:file", args=[page.step.screen.asset_id])
        request = self.context.get("request")
        return request.build_absolute_uri(address) if request else address


class GraphEdgeSerializer(serializers.Serializer):
    source = serializers.CharField(source="source.label")
    destination = serializers.CharField(source="destination.label")
    text = serializers.CharField(help_text="The button's text, alt text or label.")
    clicked = serializers.BooleanField(help_text="A rater was recorded clicking it; false: only a link on the page.")


class SiteGraphSerializer(serializers.Serializer):
    site = serializers.IntegerField(source="site.pk")
    homepage = serializers.CharField(
        source="homepage_id",
        allow_null=True,
        help_text="The homepage's page id; null when nobody recorded it, so no episode can start on the site.",
    )
    homepage_url = serializers.URLField(source="site.url")
    built_at = serializers.DateTimeField(source="site.graph_built_at", allow_null=True)
    traces = serializers.IntegerField(source="site.graph_traces", help_text="Recorded traces that fed the graph.")
    pages = GraphPageSerializer(many=True)
    edges = GraphEdgeSerializer(many=True)
    unreachable = serializers.SerializerMethodField(help_text="Ids of the pages the homepage's links do not reach.")

    def get_unreachable(self, graph) -> list[str]:
        return [page.label for page in graph.unreachable]


class GraphRebuildSerializer(serializers.Serializer):
    site = serializers.IntegerField()
    job = serializers.IntegerField(help_text="The queued rebuild job.")
    requested_at = serializers.DateTimeField()
