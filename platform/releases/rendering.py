"""A release's datasheet, written in Markdown by the build, as HTML for its pages.

CommonMark with raw HTML switched off: any tag in the text (notes are typed by admins) is
shown as text, never run; links keep only safe schemes (markdown-it's own check)."""

from django.utils.safestring import mark_safe
from markdown_it import MarkdownIt

_markdown = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable("table")


def datasheet_html(text):
    return mark_safe(_markdown.render(text or ""))  # noqa: S308 (raw HTML is off: the renderer escapes it)
