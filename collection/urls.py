from django.urls import path

from . import site_views, views

app_name = "collection"

urlpatterns = [
    path("extension/", views.extension, name="extension"),
    path("extension/download/", views.extension_download, name="extension-download"),
    path("sites/", site_views.sites, name="sites"),
    path("sites/<int:site_id>/graph/", site_views.site_graph_page, name="site-graph"),
    path("sites/<int:site_id>/graph/rebuild/", site_views.rebuild_site_graph, name="site-graph-rebuild"),
]
