"""Serving an asset's bytes: only through here, only to users who may see it.

With storage that signs URLs (S3 with ``querystring_auth``), the answer is a redirect to
a link that expires in minutes; otherwise Django streams the file itself. Either way
there is no public URL to share or guess.
"""

from django.contrib.auth.decorators import login_required
from django.core.files.storage import default_storage
from django.http import FileResponse, Http404, HttpResponseRedirect
from django.views.decorators.http import require_safe

from . import selectors
from .models import Asset


@login_required
@require_safe
def asset_file(request, asset_id):
    asset = _viewable(request, asset_id)
    return _serve(asset.storage_key, asset.content_type)


@login_required
@require_safe
def asset_thumbnail(request, asset_id):
    asset = _viewable(request, asset_id)
    return _serve(asset.thumbnail_key, Asset.THUMBNAIL_CONTENT_TYPE)


def _viewable(request, asset_id):
    asset = selectors.viewable_asset(user=request.user, asset_id=asset_id)
    if asset is None:
        raise Http404("There is no such image, or it is not yours to see.")
    return asset


def _serve(key, content_type):
    if getattr(default_storage, "querystring_auth", False):
        response = HttpResponseRedirect(default_storage.url(key))
        # The link expires: a cached redirect would soon lead nowhere.
        response["Cache-Control"] = "private, no-store"
        return response
    try:
        handle = default_storage.open(key, "rb")
    except FileNotFoundError:
        raise Http404("The image's file is no longer stored.") from None
    response = FileResponse(handle, content_type=content_type)
    response["X-Content-Type-Options"] = "nosniff"
    response["Cache-Control"] = "private"
    return response
