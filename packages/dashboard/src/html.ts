/**
 * @module HTML built from templates that escape every value: `html\`<td>${value}</td>\`` writes
 * `value` as text, whatever it holds (a stored body with `<script>` included). Only another
 * template's result is inserted as markup.
 */

/** Markup made by {@link html}: inserted into another template as it is. */
export class Html {
  constructor(readonly markup: string) {}
  toString(): string {
    return this.markup;
  }
}

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** `text` safe as element content and as a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ENTITIES[char]!);
}

function render(value: unknown): string {
  if (value instanceof Html) return value.markup;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/**
 * A template whose values are escaped (arrays joined, `null`, `undefined` and `false` left out),
 * except {@link Html} values, which are markup already.
 * @example
 * html`<a href="${url}">${provider}</a>`
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1]!;
  return new Html(out);
}

/**
 * A stored value (a provider, an id, an error, a header) as page text: escaped, in a `<bdi>` of its
 * own. Direction controls it holds (an unclosed right-to-left override) end with it, so they never
 * reorder the page's own words around it, and its direction is its own (`dir=auto`). The element
 * adds no character: copied, the value is exactly what is stored.
 */
export const stored = (value: string): Html => html`<bdi>${value}</bdi>`;

/**
 * A stored value in text that cannot hold markup (the page's `<title>`): between FIRST STRONG
 * ISOLATE and POP DIRECTIONAL ISOLATE, the characters that do what `<bdi>` does.
 */
export const isolated = (value: string): string => `\u2068${value}\u2069`;
