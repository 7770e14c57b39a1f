from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView

# The work engine's routes first, and the API first of all: a rater's script asks for a
# task and submits it many times a minute, and each route tried before costs a match.
api_v1 = [
    path("", include("hits.api_urls")),
    path("", include("accounts.api_urls")),
    path("", include("assets.api_urls")),
    path("", include("collection.api_urls")),
    path("", include("validation.api_urls")),
    path("", include("mining.api_urls")),
    path("", include("generation.api_urls")),
    path("", include("webhooks.api_urls")),
    path("", include("releases.api_urls")),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularRedocView.as_view(url_name="api-v1:schema"), name="docs"),
]

urlpatterns = [
    path("api/v1/", include((api_v1, "api-v1"))),
    path("admin/", admin.site.urls),
    path("accounts/", include("accounts.urls")),
    path("assets/", include("assets.urls")),
    path("capture/", include("collection.urls")),
    path("review/", include("moderation.urls")),
    path("training/", include("validation.training_urls")),
    path("dashboards/", include("dashboards.urls")),
    path("releases/", include("releases.urls")),
    path("generation/", include("generation.urls")),
    path("providers/", include("providers.urls")),
    path("console/", include("console.urls")),
    path("", include("hits.urls")),
]

# Under /api/ even Django's own errors (no route matches, a crash) answer with the API's
# error body; elsewhere they are the site's pages.
handler400 = "config.api.api_bad_request"
handler404 = "config.api.api_not_found"
handler500 = "config.api.api_server_error"
