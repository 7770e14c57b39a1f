"""Pages for raters about capture work: getting the Chrome extension."""

import io

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import render

from . import extension_package


@login_required
def extension(request):
    return render(request, "collection/extension.html", {"version": extension_package.manifest()["version"]})


@login_required
def extension_download(request):
    buffer = io.BytesIO()
    version, _count = extension_package.write_zip(buffer)
    response = HttpResponse(buffer.getvalue(), content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="trailmark-extension-{version}.zip"'
    return response
