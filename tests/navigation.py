"""A recorded website for navigation tests: traces over a small shop, its graph built,
and navigation episodes on it, made directly (as the navigation kind writes them)."""

from corpus.models import Episode, Evidence, NavPage, QAPair, Site
from corpus.navigation import episode_path, rebuild
from releases.tests import data
from tests.factories import make_category

# home → category pages → product pages; "/about" is one click away, "/hidden" is never
# linked from a recorded page (a trace opened it directly).
SHOP_TRACES = (
    ("/", "/kettles", "/kettles/steel"),
    ("/", "/kettles", "/kettles/glass"),
    ("/", "/mugs", "/mugs/blue"),
    ("/", "/about"),
    ("/hidden", "/hidden/deal"),
)


def recorded_site(author, *, host="shop.example", traces=SHOP_TRACES, uncleared=None):
    """A catalogue site on ``host`` whose traces follow ``traces`` (paths), graph built."""
    site = Site.objects.filter(host=host).first() or Site.objects.create(
        category=make_category("shopping"), name=f"Shop {host}", url=f"https://{host}/"
    )
    for pages in traces:
        data.trace(author, list(pages), host=host, uncleared=(uncleared or {}).get(pages, ()))
    return rebuild(site)


def episode(author, site, target, *, state="accepted", question=None, answer="$34.99", description=None, **fields):
    """A navigation question on ``site`` whose target is the page at path ``target``."""
    path = episode_path(site, f"https://{site.host}{target}")
    pair = QAPair.objects.create(
        author=author, family="webvln", split_kind="navigation", state=state, category=site.category,
        question=question or f"What does {target} cost?", answer=answer, **fields,
    )  # fmt: skip
    pages = {page.url: page for page in NavPage.objects.filter(site=site, url__in=path).select_related("step")}
    for position, url in enumerate(path):
        step = pages[url].step
        Evidence.objects.create(qa_pair=pair, position=position, screen=step.screen, step=step)
    Episode.objects.create(
        qa_pair=pair, site=site, target_url=path[-1], path=path, description=description or f"The page {target}."
    )
    return pair
