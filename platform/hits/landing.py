"""The front door: what Trailmark is, for a visitor who has not logged in.

Signed-in users have nothing to read here and go to their work page."""

from django.shortcuts import redirect, render


def landing(request):
    if request.user.is_authenticated:
        return redirect("hits:home")
    return render(request, "landing.html")
