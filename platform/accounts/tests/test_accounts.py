import pytest
from django.urls import reverse

from accounts.models import ApiToken, Role, User, digest_token
from tests.factories import PASSWORD, UserFactory

pytestmark = pytest.mark.django_db


def test_sign_up_makes_a_rater_with_a_profile_and_signs_them_in(client):
    response = client.post(
        reverse("accounts:signup"),
        {
            "username": "ana",
            "email": "ana@example.org",
            "locale": "pt-BR",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
    )
    assert response.status_code == 302 and response["Location"] == reverse("hits:home")
    user = User.objects.get(username="ana")
    assert (user.role, user.profile.locale, user.is_staff) == (Role.RATER, "pt-BR", False)
    assert client.get(reverse("hits:home")).status_code == 200


def test_sign_up_with_bad_input_shows_errors_and_creates_nothing(client):
    response = client.post(
        reverse("accounts:signup"), {"username": "bo", "locale": "en-US", "password1": "short", "password2": "other"}
    )
    assert response.status_code == 200
    assert b"didn\xe2\x80\x99t match" in response.content or b"didn't match" in response.content
    assert not User.objects.filter(username="bo").exists()


def test_log_in_and_log_out(client, rater):
    bad = client.post(reverse("accounts:login"), {"username": rater.username, "password": "wrong"})
    assert bad.status_code == 200 and b"do not match" in bad.content
    good = client.post(reverse("accounts:login"), {"username": rater.username, "password": PASSWORD})
    assert good.status_code == 302
    assert client.get(reverse("hits:home")).templates[0].name == "hits/home.html"
    client.post(reverse("accounts:logout"))
    assert client.get(reverse("hits:home")).templates[0].name == "landing.html"


def test_roles_include_the_roles_below_them(db):
    reviewer = UserFactory(role=Role.REVIEWER)
    assert reviewer.has_role(Role.RATER) and reviewer.has_role(Role.VALIDATOR)
    assert not reviewer.has_role(Role.ADMIN)
    admin = UserFactory(role=Role.ADMIN)
    assert admin.is_staff and admin.is_superuser


def test_superuser_made_outside_sign_up_still_gets_a_profile(db):
    user = User.objects.create_superuser("root", "root@example.org", PASSWORD)
    assert user.profile.approved_count == 0


def test_profile_page_creates_a_token_shown_once_and_stored_hashed(client, rater):
    client.force_login(rater)
    response = client.post(reverse("accounts:create-token"), {"name": "Chrome extension"})
    key = response.context["new_key"]
    assert key.encode() in response.content
    token = ApiToken.objects.get(user=rater)
    assert token.digest == digest_token(key) and key not in (token.digest, token.prefix)
    again = client.get(reverse("accounts:profile"))
    assert key.encode() not in again.content and b"Chrome extension" in again.content
    api = client.__class__()
    assert api.get("/api/v1/me/", HTTP_AUTHORIZATION=f"Token {key}").json()["username"] == rater.username


def test_revoking_a_token_stops_it_at_once(client, rater, api_for):
    from accounts.services import create_api_token

    token, key = create_api_token(user=rater, name="script")
    client.force_login(rater)
    client.post(reverse("accounts:revoke-token", args=[token.pk]))
    token.refresh_from_db()
    assert token.revoked_at is not None
    response = client.__class__().get("/api/v1/me/", HTTP_AUTHORIZATION=f"Token {key}")
    assert response.status_code == 401


def test_nobody_can_revoke_someone_elses_token(client, rater, other_rater):
    from accounts.services import create_api_token

    token, _ = create_api_token(user=rater, name="mine")
    client.force_login(other_rater)
    assert client.post(reverse("accounts:revoke-token", args=[token.pk])).status_code == 404
    assert api_token_is_active(token)


def api_token_is_active(token):
    token.refresh_from_db()
    return token.is_active


def test_token_api_lists_creates_and_revokes_own_tokens(rater, other_rater, api_for):
    client = api_for(rater)
    created = client.post("/api/v1/tokens/", {"name": "notebook"}, format="json")
    assert created.status_code == 201 and len(created.json()["key"]) > 30
    assert {t["name"] for t in client.get("/api/v1/tokens/").json()["results"]} == {"tests", "notebook"}
    assert api_for(other_rater).delete(f"/api/v1/tokens/{created.json()['id']}/").status_code == 404
    assert client.delete(f"/api/v1/tokens/{created.json()['id']}/").status_code == 204


def test_an_admin_moved_to_another_role_loses_the_admin_rights(client):
    user = UserFactory(role=Role.ADMIN)
    assert (user.is_staff, user.is_superuser) == (True, True)
    user.role = Role.RATER
    user.save()
    user.refresh_from_db()
    assert (user.is_staff, user.is_superuser) == (False, False)
    assert not user.has_role(Role.REVIEWER)
    client.force_login(user)
    assert client.get("/admin/").status_code == 302  # sent to the admin's log-in


def test_a_role_change_saved_by_field_name_demotes_too_and_other_saves_leave_rights_alone():
    user = UserFactory(role=Role.ADMIN)
    user.save(update_fields=["last_login"])  # e.g. logging in: nothing about the role
    user.refresh_from_db()
    assert user.is_superuser
    user.role = Role.REVIEWER
    user.save(update_fields=["role"])
    user.refresh_from_db()
    assert (user.role, user.is_staff, user.is_superuser) == (Role.REVIEWER, False, False)


def test_a_superuser_made_on_the_command_line_keeps_the_rights():
    user = User.objects.create_superuser("root2", "root@example.org", PASSWORD)
    user.first_name = "Root"
    user.save()
    user.refresh_from_db()
    assert (user.is_staff, user.is_superuser) == (True, True)


def test_one_permissions_module_refuses_by_role_with_the_reason(rf):
    from django.contrib.auth.models import AnonymousUser
    from django.core.exceptions import PermissionDenied
    from django.http import HttpResponse

    from accounts.permissions import IsReviewer, requires, role_required

    @role_required(Role.REVIEWER, "Only reviewers look here.")
    def page(request):
        return HttpResponse("ok")

    request = rf.get("/somewhere/")
    request.user = AnonymousUser()
    assert page(request).status_code == 302  # signed in first
    request.user = UserFactory(role=Role.VALIDATOR)
    with pytest.raises(PermissionDenied, match="Only reviewers look here."):
        page(request)
    request.user = UserFactory(role=Role.ADMIN)
    assert page(request).content == b"ok"

    pools = requires(Role.ADMIN, "Only admins manage pools.")()
    request.user = UserFactory(role=Role.REVIEWER)
    assert IsReviewer().has_permission(request, None) and not pools.has_permission(request, None)
    assert pools.message == "Only admins manage pools."
    request.user = AnonymousUser()
    assert not IsReviewer().has_permission(request, None)
