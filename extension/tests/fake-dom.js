/**
 * A tiny DOM for lib/describe.js: elements with a tag, attributes, children, a box, text
 * and a visibility flag — the members describe.js reads, nothing more.
 */

export class FakeElement {
  constructor(tagName, attributes = {}, options = {}) {
    this.nodeType = 1;
    this.tagName = tagName.toUpperCase();
    this.attributes = new Map(Object.entries(attributes));
    this.children = [];
    this.parentElement = null;
    this.ownText = options.text ?? "";
    this.rect = options.rect ?? [0, 0, 0, 0];
    this.visible = options.visible ?? true;
    this.baseURI = options.baseURI ?? "https://shop.example/kettles";
    if (options.labels) this.labels = options.labels;
    if (options.value !== undefined) this.value = options.value;
  }

  append(...children) {
    for (const child of children) {
      child.parentElement = this;
      this.children.push(child);
    }
    return this;
  }

  getAttribute(name) {
    return this.attributes.has(name) ? this.attributes.get(name) : null;
  }

  hasAttribute(name) {
    return this.attributes.has(name);
  }

  get innerText() {
    return [this.ownText, ...this.children.map((child) => child.innerText)].filter(Boolean).join(" ");
  }

  getBoundingClientRect() {
    const [x, y, width, height] = this.rect;
    return { x, y, width, height, left: x, top: y, right: x + width, bottom: y + height };
  }

  checkVisibility() {
    return this.visible;
  }
}

/** h("a", {href: "/x"}, {text: "Next", rect: [x, y, w, h]}, ...children) */
export function h(tag, attributes = {}, options = {}, ...children) {
  return new FakeElement(tag, attributes, options).append(...children);
}

export function fakeDocument(...bodyChildren) {
  const body = h("body", {}, {}, ...bodyChildren);
  const html = h("html", {}, {}, body);
  return { body, documentElement: html };
}
