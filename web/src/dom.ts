/** Small DOM helpers for the demo page (no framework). */

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`demo page: #${id} is missing`);
  return element as T;
}

type Attributes = Record<string, string | boolean | undefined>;

/** Creates an element with attributes (true → empty attribute, false/undefined → left out) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: (Node | string | null | undefined | false)[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (name === 'class') element.className = String(value);
    else element.setAttribute(name, value === true ? '' : value);
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child);
  }
  return element;
}

/** A status line: text plus a tone (`info`, `ok`, `error`) shown by CSS. */
export function setStatus(element: HTMLElement, text: string, tone: 'info' | 'ok' | 'error' | 'busy' = 'info'): void {
  element.textContent = text;
  element.dataset.tone = tone;
}

/** Time of day of an ISO timestamp, in the reader's locale. */
export function timeOf(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

export function shortId(uid: string): string {
  return uid.slice(0, 8);
}

const announcer = () => document.getElementById('announcer');

/** Says something to screen-reader users through the page's polite live region. */
export function announce(text: string): void {
  const region = announcer();
  if (!region) return;
  region.textContent = '';
  // A fresh text node after clearing makes repeated messages announced again.
  setTimeout(() => (region.textContent = text), 50);
}
