import pytest

from collection.answers import answer_type
from collection.catalogue import import_sites, site_for
from corpus.models import Category, Site
from tests.factories import site

pytestmark = pytest.mark.django_db


def test_the_default_categories_exist():
    assert list(Category.objects.values_list("name", flat=True)) == [
        "Restaurant", "Shopping", "Hotel", "Transportation", "Landmark", "News", "Media Sharing",
        "Education & Information", "Movies", "Real Estate", "Other",
    ]  # fmt: skip


def test_csv_import_adds_then_changes_nothing_on_a_second_run():
    text = "category,name,url,notes\nShopping,Shop A,https://www.shop-a.test/,\nhotel,Stay B,https://stay-b.test/rooms,Use the city pages\n"
    first = import_sites(text=text)
    assert (first.ok, first.created, first.updated) == (True, 2, 0)
    second = import_sites(text=text)
    assert (second.created, second.updated) == (0, 0)
    assert Site.objects.get(host="stay-b.test").category.slug == "hotel"


def test_csv_import_reports_every_bad_line_and_imports_nothing():
    text = (
        "category,name,url\n"
        "Shopping,Good,https://good.test/\n"
        "Spaceships,Bad category,https://x.test/\n"
        "Shopping,,https://noname.test/\n"
        "Shopping,Not a URL,ftp//nope\n"
        "Shopping,Twice,https://www.good.test/again\n"
    )
    report = import_sites(text=text)
    assert [line for line, _ in report.errors] == [3, 4, 5, 6]
    assert "Spaceships" in report.errors[0][1] and "twice" in report.errors[3][1]
    assert not Site.objects.exists()


def test_csv_import_without_the_right_header_says_which_columns_are_missing():
    report = import_sites(text="name,link\nShop,https://shop.test\n")
    assert report.errors == [(1, "The header must name the columns category, name, url; missing: category, url.")]


def test_pages_on_subdomains_belong_to_their_site():
    booking = site(category="hotel", url="https://www.booking.test/")
    assert site_for(url="https://secure.booking.test/rooms?id=4") == booking
    assert site_for(url="https://booking.test.evil.test/") is None
    assert site_for(url="https://www.booking.test/", category=Category.objects.get(slug="news")) is None


@pytest.mark.parametrize(
    ("answer", "kind"),
    [("42", "integer"), ("1,234", "integer"), ("$40", "integer"), ("-3", "integer"), ("3.5", "decimal"),
     ("$12.99", "decimal"), ("7.5%", "decimal"), ("Hotel B", "text"), ("2 hours", "text"), ("", "text")],
)  # fmt: skip
def test_answer_types_are_detected(answer, kind):
    assert answer_type(answer) == kind
