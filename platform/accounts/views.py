from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from . import services
from .forms import NewTokenForm, ProfileForm, SignupForm
from .models import ApiToken


def locked_out(request, credentials, *args, **kwargs):
    """What a locked-out log-in sees (django-axes calls this): when to try again, and who
    can lift it sooner. 429, so scripts back off too."""
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    response = render(
        request,
        "accounts/login.html",
        {"locked": True, "minutes": minutes, "next": request.POST.get("next", "")},
        status=429,
    )
    response["Retry-After"] = str(minutes * 60)
    return response


def signup(request):
    if request.user.is_authenticated:
        return redirect("hits:home")
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = services.create_user(
            username=form.cleaned_data["username"],
            password=form.cleaned_data["password1"],
            email=form.cleaned_data["email"],
            locale=form.cleaned_data["locale"],
        )
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, "Welcome to Trailmark. Pick a batch below to start working.")
        return redirect("hits:home")
    return render(request, "accounts/signup.html", {"form": form})


@login_required
def profile(request):
    user_profile = services.ensure_profile(user=request.user)
    form = ProfileForm(request.POST or None, initial={"locale": user_profile.locale})
    if request.method == "POST" and form.is_valid():
        services.set_locale(user=request.user, locale=form.cleaned_data["locale"])
        messages.success(request, "Profile saved.")
        return redirect("accounts:profile")
    return render(request, "accounts/profile.html", _profile_context(request, form=form))


def _profile_context(request, **extra):
    return {
        "profile": services.ensure_profile(user=request.user),
        "tokens": request.user.api_tokens.all(),
        "token_form": NewTokenForm(),
        "grants": request.user.qualification_grants.select_related("qualification"),
        **extra,
    }


@login_required
@require_POST
def create_token(request):
    form = NewTokenForm(request.POST)
    context = {}
    if form.is_valid():
        token, key = services.create_api_token(user=request.user, name=form.cleaned_data["name"])
        context = {"new_token": token, "new_key": key}
    else:
        context = {"token_form": form}
    template = "accounts/_tokens.html" if request.headers.get("HX-Request") else "accounts/profile.html"
    return render(
        request,
        template,
        {**_profile_context(request, form=ProfileForm(initial={"locale": request.user.profile.locale})), **context},
    )


@login_required
@require_POST
def revoke_token(request, token_id):
    token = get_object_or_404(ApiToken, pk=token_id, user=request.user)
    services.revoke_api_token(token=token)
    if request.headers.get("HX-Request"):
        return render(request, "accounts/_tokens.html", _profile_context(request))
    messages.success(request, f"Token “{token.name}” revoked.")
    return redirect("accounts:profile")
