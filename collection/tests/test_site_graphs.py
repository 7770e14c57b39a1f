"""Admins look at each catalogue site's navigation graph, on a page and over the API, and
ask for it to be rebuilt; nobody else may."""

import re

import pytest

from corpus.models import NavPage
from corpus.tasks import rebuild_site_graph
from outbox.models import Job
from releases.tests import data
from tests.navigation import recorded_site

pytestmark = pytest.mark.django_db
HOST = "https://shop.example"
# tests.navigation.SHOP_TRACES: five traces over nine pages; "/hidden" and "/hidden/deal"
# are never reached from the homepage; the kettles and the blue mug are two clicks away.
UNREACHABLE = {"/hidden", "/hidden/deal"}
TARGETS = {"/kettles/steel", "/kettles/glass", "/mugs/blue"}
# Seven recorded clicks, and every page but the homepage links "Home".
CLICKS = {
    ("/", "/kettles"), ("/kettles", "/kettles/steel"), ("/kettles", "/kettles/glass"), ("/", "/mugs"),
    ("/mugs", "/mugs/blue"), ("/", "/about"), ("/hidden", "/hidden/deal"),
}  # fmt: skip
PAGES = {"/", "/kettles", "/kettles/steel", "/kettles/glass", "/mugs", "/mugs/blue", "/about", *UNREACHABLE}


@pytest.fixture
def shop(rater):
    return recorded_site(rater)


def _id(site, path):
    return f"{site.host}_{NavPage.objects.get(site=site, url=f'{HOST}{path}').number}"


def _figure(html, name):
    return int(re.search(rf'<dd data-testid="{name}">(\d+)</dd>', html).group(1))


def test_the_sites_page_lists_every_site_with_its_graphs_figures(shop, rater, admin_user, client):
    no_homepage = recorded_site(rater, host="deals.example", traces=(("/sale", "/sale/tv"),))
    client.force_login(admin_user)
    response = client.get("/capture/sites/")
    assert response.status_code == 200
    rows = {site.pk: site for site in response.context["sites"]}
    figures = rows[shop.pk]
    assert (figures.page_count, figures.edge_count, figures.graph_traces) == (9, 7 + 8, 5)
    assert (figures.unreachable_count, figures.target_count, figures.homepage_recorded) == (2, 3, True)
    assert (rows[no_homepage.pk].page_count, rows[no_homepage.pk].unreachable_count) == (2, 2)
    assert not rows[no_homepage.pk].homepage_recorded
    html = response.content.decode()
    assert f'href="/capture/sites/{shop.pk}/graph/"' in html
    assert html.count("never recorded") == 1
    assert 'href="/capture/sites/"' in html  # the admins' nav links here


def test_a_sites_graph_page_shows_its_pages_edges_and_unreachable_pages(shop, admin_user, client):
    client.force_login(admin_user)
    response = client.get(f"/capture/sites/{shop.pk}/graph/")
    assert response.status_code == 200
    html = response.content.decode()
    assert (_figure(html, "pages"), _figure(html, "edges"), _figure(html, "clicked")) == (9, 15, 7)
    assert (_figure(html, "traces"), _figure(html, "unreachable"), _figure(html, "targets")) == (5, 2, 3)
    assert set(re.findall(r'data-testid="graph-page" data-page="([^"]+)"', html)) == {_id(shop, p) for p in PAGES}
    unreachable = html.split('data-testid="unreachable-pages"')[1].split("</section>")[0]
    assert set(re.findall(r'href="#page-\d+">([^<]+)</a>', unreachable)) == {_id(shop, p) for p in UNREACHABLE}
    assert html.count("not reachable from the homepage") == 2
    assert "no-homepage" not in html

    steel = NavPage.objects.get(site=shop, url=f"{HOST}/kettles/steel")
    asset = steel.step.screen.asset_id
    assert f'<a href="/assets/{asset}/"><img src="/assets/{asset}/thumb/"' in html
    kettles = html.split(f'data-page="{_id(shop, "/kettles")}"')[1].split("</article>")[0]
    assert "2 clicks" not in kettles and "1 click from the homepage" in kettles
    assert f'“Go 1” → <a href="#page-{steel.number}">{_id(shop, "/kettles/steel")}</a> Title /kettles/steel' in kettles
    assert kettles.count(">clicked<") == 2 and kettles.count(">link<") == 1  # Home is only a link
    assert client.get(f"/assets/{asset}/").status_code == 200
    assert client.get(f"/assets/{asset}/thumb/").status_code == 200


def test_a_site_whose_homepage_nobody_recorded_says_no_episode_can_start_there(rater, admin_user, client, api_for):
    site = recorded_site(rater, host="deals.example", traces=(("/sale", "/sale/tv"),))
    client.force_login(admin_user)
    html = client.get(f"/capture/sites/{site.pk}/graph/").content.decode()
    assert "Nobody has recorded the homepage (https://deals.example/) yet" in html
    body = api_for(admin_user).get(f"/api/v1/sites/{site.pk}/graph/").json()
    assert body["homepage"] is None
    assert sorted(body["unreachable"]) == sorted(page["id"] for page in body["pages"])


def test_the_api_gives_a_sites_graph(shop, admin_user, api_for):
    response = api_for(admin_user).get(f"/api/v1/sites/{shop.pk}/graph/")
    assert response.status_code == 200
    body = response.json()
    assert (body["site"], body["homepage"], body["homepage_url"]) == (shop.pk, _id(shop, "/"), shop.url)
    assert body["traces"] == 5 and body["built_at"]
    pages = {page["url"].removeprefix(HOST): page for page in body["pages"]}
    assert set(pages) == PAGES
    steel = NavPage.objects.get(site=shop, url=f"{HOST}/kettles/steel")
    assert pages["/kettles/steel"] == {
        "id": f"shop.example_{steel.number}", "number": steel.number, "url": f"{HOST}/kettles/steel",
        "title": "Title /kettles/steel", "depth": 2, "traces": 1,
        "screenshot": f"http://testserver/assets/{steel.step.screen.asset_id}/",
    }  # fmt: skip
    assert {path for path, page in pages.items() if page["depth"] is None} == UNREACHABLE
    assert set(body["unreachable"]) == {_id(shop, path) for path in UNREACHABLE}
    path_of = {page["id"]: path for path, page in pages.items()}
    clicked = {(path_of[e["source"]], path_of[e["destination"]]) for e in body["edges"] if e["clicked"]}
    links = {(path_of[e["source"]], path_of[e["destination"]], e["text"]) for e in body["edges"] if not e["clicked"]}
    assert clicked == CLICKS
    assert links == {(path, "/", "Home") for path in PAGES - {"/"}}


@pytest.mark.parametrize("role", ["rater", "reviewer"])
def test_only_admins_see_or_rebuild_a_graph(role, shop, request, client, api_for):
    someone = request.getfixturevalue(role)
    assert client.get("/capture/sites/").status_code == 302  # signed out: to the login page
    client.force_login(someone)
    assert client.get("/capture/sites/").status_code == 403
    assert client.get(f"/capture/sites/{shop.pk}/graph/").status_code == 403
    assert client.post(f"/capture/sites/{shop.pk}/graph/rebuild/").status_code == 403
    api = api_for(someone)
    refused = api.get(f"/api/v1/sites/{shop.pk}/graph/")
    assert refused.status_code == 403
    assert "Only admins" in refused.json()["error"]["message"]
    assert api.post(f"/api/v1/sites/{shop.pk}/graph/rebuild/").status_code == 403
    assert api.get("/api/v1/sites/999999/graph/").status_code == 403  # refused before looked up
    assert api.get(f"/api/v1/sites/{shop.pk}/").status_code == 200  # the site itself stays visible
    assert not Job.objects.filter(task="corpus.rebuild_site_graph").exists()
    assert "Site graphs" not in client.get("/").content.decode()


def _add_a_trace(shop, rater):
    data.trace(rater, ["/", "/mugs", "/mugs/red"], host=shop.host)
    assert not NavPage.objects.filter(site=shop, url=f"{HOST}/mugs/red").exists()  # not until rebuilt


def _run(job):
    assert job.task == "corpus.rebuild_site_graph" and job.args[0] is not None
    return rebuild_site_graph(*job.args)  # what the worker runs


def test_rebuild_now_queues_the_job_that_rebuilds_the_graph(shop, rater, admin_user, client):
    _add_a_trace(shop, rater)
    client.force_login(admin_user)
    response = client.post(f"/capture/sites/{shop.pk}/graph/rebuild/", follow=True)
    assert response.redirect_chain == [(f"/capture/sites/{shop.pk}/graph/", 302)]
    assert "graph is queued" in response.content.decode()
    (job,) = Job.objects.filter(task="corpus.rebuild_site_graph")
    assert job.args[0] == shop.pk
    assert _run(job)["pages"] == 10
    red = NavPage.objects.get(site=shop, url=f"{HOST}/mugs/red")
    assert red.depth == 2
    html = client.get(f"/capture/sites/{shop.pk}/graph/").content.decode()
    assert (_figure(html, "pages"), _figure(html, "traces"), _figure(html, "targets")) == (10, 6, 4)
    assert client.get(f"/capture/sites/{shop.pk}/graph/rebuild/").status_code == 405


def test_the_api_queues_a_rebuild(shop, rater, admin_user, api_for):
    _add_a_trace(shop, rater)
    api = api_for(admin_user)
    response = api.post(f"/api/v1/sites/{shop.pk}/graph/rebuild/")
    assert response.status_code == 202
    job = Job.objects.get(task="corpus.rebuild_site_graph")
    assert response.json()["site"] == shop.pk and response.json()["job"] == job.pk
    _run(job)
    pages = api.get(f"/api/v1/sites/{shop.pk}/graph/").json()["pages"]
    assert f"{HOST}/mugs/red" in {page["url"] for page in pages}


def test_an_unknown_site_is_not_found(shop, admin_user, client, api_for):
    client.force_login(admin_user)
    assert client.get("/capture/sites/999999/graph/").status_code == 404
    assert client.post("/capture/sites/999999/graph/rebuild/").status_code == 404
    api = api_for(admin_user)
    for address in ("/api/v1/sites/999999/graph/", "/api/v1/sites/kettle/graph/"):
        missing = api.get(address)
        assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
    assert api.post("/api/v1/sites/999999/graph/rebuild/").status_code == 404
    assert not Job.objects.exists()


def test_a_site_whose_graph_was_never_built_shows_an_empty_graph(admin_user, client, api_for):
    site = recorded_site(admin_user, host="new.example", traces=())
    site.nav_pages.all().delete()
    type(site).objects.filter(pk=site.pk).update(graph_built_at=None)
    client.force_login(admin_user)
    html = client.get(f"/capture/sites/{site.pk}/graph/").content.decode()
    assert "The graph has not been built yet" in html and "no-homepage" not in html
    body = api_for(admin_user).get(f"/api/v1/sites/{site.pk}/graph/").json()
    assert body == {
        "site": site.pk, "homepage": None, "homepage_url": "https://new.example/", "built_at": None, "traces": 0,
        "pages": [], "edges": [], "unreachable": [],
    }  # fmt: skip
