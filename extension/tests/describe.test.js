import assert from "node:assert/strict";
import { test } from "node:test";

import "../lib/describe.js"; // a classic script: it leaves its functions on globalThis
import { fakeDocument, h } from "./fake-dom.js";

const { describeTarget, collectClickables, cssSelector, describePage, isTextEntry } = globalThis.TrailmarkDescribe;

function shopPage() {
  const icon = h("span", { class: "icon" }, { text: "→", rect: [412, 705, 12, 12] });
  const next = h("a", { href: "?page=2", class: "next" }, { text: "Next  page", rect: [360.4, 700.2, 80, 24.6] }, icon);
  const previous = h("a", { href: "?page=0" }, { text: "Previous page", rect: [260, 700, 80, 24] });
  const nav = h("nav", {}, {}, previous, next);
  const main = h("main", { id: "content" }, {}, h("h1", {}, { text: "Kettles", rect: [0, 0, 300, 40] }), nav);
  const document = fakeDocument(main);
  return { document, icon, next, previous };
}

test("a click on the icon inside a link describes the link, its box scaled by devicePixelRatio", () => {
  const { icon } = shopPage();

  const target = describeTarget(icon, { dpr: 2 });

  assert.deepEqual(target, {
    tag: "a",
    text: "Next page →",
    label: "",
    role: "link",
    href: "https://shop.example/kettles?page=2",
    bbox: [721, 1400, 160, 49],
    selector: "#content > nav > a:nth-of-type(2)",
  });
});

test("a button's aria-label is its label and its text stays its text", () => {
  const button = h("button", { "aria-label": "Add to basket", role: "button" }, { text: " Add ", rect: [10, 20, 100, 30] });
  fakeDocument(h("div", {}, {}, button));

  const target = describeTarget(button, { dpr: 1.5 });

  assert.equal(target.tag, "button");
  assert.equal(target.text, "Add");
  assert.equal(target.label, "Add to basket");
  assert.equal(target.role, "button");
  assert.equal(target.href, "");
  assert.deepEqual(target.bbox, [15, 30, 150, 45]);
  assert.equal(target.selector, "body > div > button");
});

test("a text field gives its label but never what was typed in it", () => {
  const label = h("label", { for: "q" }, { text: "Search kettles" });
  const field = h("input", { type: "search", name: "q", id: "q" }, { rect: [0, 0, 200, 20], labels: [label], value: "my secret" });
  fakeDocument(h("form", {}, {}, label, field));

  const target = describeTarget(field);

  assert.equal(target.text, "");
  assert.equal(target.label, "Search kettles");
  assert.equal(target.role, "searchbox");
  assert.equal(target.selector, "#q");
  assert.equal(isTextEntry(field), true);
});

test("a submit input's text is its value; an image's is its alt", () => {
  const submit = h("input", { type: "submit", value: "Buy now" }, { rect: [0, 0, 80, 20] });
  const image = h("img", { alt: "Steel kettle", src: "k.png" }, { rect: [0, 30, 80, 80] });
  fakeDocument(submit, image);

  assert.equal(describeTarget(submit).text, "Buy now");
  assert.equal(describeTarget(submit).role, "button");
  assert.equal(describeTarget(image).text, "Steel kettle");
  assert.equal(describeTarget(image).role, "img");
});

test("generated ids are not trusted for selectors; test ids are", () => {
  const generated = h("div", { id: ":r1:" }, {}, h("button", {}, { text: "Go" }));
  const ember = h("section", { id: "ember12345" }, {}, h("a", { href: "/x" }, { text: "X" }));
  const tested = h("div", { "data-testid": "basket" }, {}, h("button", {}, { text: "Pay" }));
  fakeDocument(generated, ember, tested);

  assert.equal(cssSelector(generated.children[0]), "body > div:nth-of-type(1) > button");
  assert.equal(cssSelector(ember.children[0]), "body > section > a");
  assert.equal(cssSelector(tested.children[0]), '[data-testid="basket"] > button');
});

test("clickables are the visible links, buttons, submit inputs, [role=button] and [onclick] elements, in page order", () => {
  const viewport = { width: 1280, height: 800 };
  const logo = h("a", { href: "/" }, { rect: [0, 0, 120, 40] }, h("img", { alt: "Shop logo" }, { rect: [0, 0, 120, 40] }));
  const anchorWithoutHref = h("a", { name: "top" }, { text: "top", rect: [0, 50, 20, 10] });
  const hidden = h("button", {}, { text: "Hidden", rect: [0, 60, 50, 20], visible: false });
  const below = h("a", { href: "/footer" }, { text: "Below the fold", rect: [0, 900, 100, 20] });
  const empty = h("button", {}, { text: "No size", rect: [0, 70, 0, 0] });
  const fake = h("div", { role: "button", "aria-label": "Close" }, { rect: [1200, 10, 30, 30] });
  const handler = h("span", { onclick: "go()" }, { text: "Compare", rect: [100, 100, 60, 20] });
  const submit = h("input", { type: "submit", value: "Search" }, { rect: [300, 10, 60, 24] });
  const field = h("input", { type: "text" }, { rect: [100, 10, 180, 24] });
  const document = fakeDocument(logo, anchorWithoutHref, hidden, below, empty, h("div", {}, {}, fake, handler), submit, field);

  const clickables = collectClickables(document, { dpr: 2, viewport });

  assert.deepEqual(
    clickables.map(({ tag, text, alt }) => [tag, text, alt]),
    [
      ["a", "", "Shop logo"],
      ["div", "Close", ""],
      ["span", "Compare", ""],
      ["input", "Search", ""],
    ],
  );
  assert.deepEqual(clickables[0], {
    tag: "a", text: "", alt: "Shop logo", href: "https://shop.example/", bbox: [0, 0, 240, 80], selector: "body > a:nth-of-type(1)",
  });
  assert.deepEqual(clickables[2].bbox, [200, 200, 120, 40]);
});

test("the number of clickables is capped", () => {
  const links = Array.from({ length: 50 }, (_, index) => h("a", { href: `/p/${index}` }, { text: `P${index}`, rect: [0, index * 10, 50, 10] }));
  const clickables = collectClickables(fakeDocument(...links), { viewport: { width: 800, height: 600 }, limit: 10 });
  assert.equal(clickables.length, 10);
  assert.equal(clickables[9].text, "P9");
});

test("the page description has what a step needs; the HTML only when asked and not too big", () => {
  const document = fakeDocument(h("a", { href: "/next" }, { text: "Next", rect: [10, 10, 40, 20] }));
  document.title = "Kettles";
  document.documentElement.outerHTML = "<html><body><a href=/next>Next</a></body></html>";
  const win = { document, location: { href: "https://shop.example/kettles" }, devicePixelRatio: 2, innerWidth: 1280, innerHeight: 800, scrollX: 0, scrollY: 640.4 };

  const page = describePage(win);
  assert.deepEqual({ ...page, clickables: page.clickables.length }, {
    url: "https://shop.example/kettles",
    title: "Kettles",
    viewport: { width: 1280, height: 800 },
    devicePixelRatio: 2,
    scroll: { x: 0, y: 640 },
    clickables: 1,
  });
  assert.equal(describePage(win, { includeHtml: true }).html, document.documentElement.outerHTML);
  assert.equal("html" in describePage(win, { includeHtml: true, htmlLimitBytes: 20 }), false);
});
