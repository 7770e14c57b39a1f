from django.urls import path
from rest_framework.routers import SimpleRouter

from .api import (
    BlockListView,
    CategoryViewSet,
    ImageSourceViewSet,
    PoolImportViewSet,
    QAPairViewSet,
    ScreenViewSet,
    SiteViewSet,
    SnippetViewSet,
    TraceViewSet,
)

router = SimpleRouter()
router.register("categories", CategoryViewSet, basename="category")
router.register("sites", SiteViewSet, basename="site")
router.register("screens", ScreenViewSet, basename="screen")
router.register("qa-pairs", QAPairViewSet, basename="qa-pair")
router.register("traces", TraceViewSet, basename="trace")
router.register("pool-imports", PoolImportViewSet, basename="pool-import")
router.register("pool-images", ImageSourceViewSet, basename="pool-image")
router.register("snippets", SnippetViewSet, basename="snippet")

urlpatterns = [path("blocklist/", BlockListView.as_view(), name="blocklist"), *router.urls]
