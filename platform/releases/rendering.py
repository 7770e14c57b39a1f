"""A release's datasheet, written in Markdown by the build, as HTML for its pages.

CommonMark with raw HTML switched off: any tag in the text (notes are typed by admins) is
shown as text, never run; links keep only safe schemes (markdown-it's own check). Its
headings move one level down, under the page's own title."""

from django.utils.safestring import mark_safe
from markdown_it import MarkdownIt

_markdown = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable("table")


def datasheet_html(text):
    tokens = _markdown.parse(text or "")
    for token in tokens:
        if token.type in ("heading_open", "heading_close"):
            token.tag = f"h{min(int(token.tag[1]) + 1, 6)}"
    return mark_safe(_markdown.renderer.render(tokens, _markdown.options, {}))  # noqa: S308 (raw HTML is off)
