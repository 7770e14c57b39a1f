"""The front door: what Trailmark is, for a visitor who has not logged in.

The site's root shows it to visitors and the work page to everyone signed in;
``/welcome/`` shows it to visitors too and sends the signed-in to their work."""

from django.shortcuts import redirect, render

from . import views


def front(request):
    if request.user.is_authenticated:
        return views.home(request)
    return render(request, "landing.html")


def landing(request):
    if request.user.is_authenticated:
        return redirect("hits:home")
    return render(request, "landing.html")
