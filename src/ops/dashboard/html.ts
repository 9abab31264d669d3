import { printable } from '../../shared/printable.js';

/**
 * HTML built from a tagged template that escapes every interpolated value, so text from the
 * platform, a definition or an error message can never become markup: only values that are
 * already {@link SafeHtml} (the result of another `html` template) are inserted as they are.
 */
export class SafeHtml {
  constructor(readonly text: string) {}

  toString(): string {
    return this.text;
  }
}

type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

/**
 * Escapes text for an HTML text node or a quoted attribute value: the one function for text on
 * a page. Markup characters become entities; control, bidi and zero-width characters are shown
 * as their escapes (`\u202e`), as on a terminal (shared/printable.ts), so a platform's name can
 * neither reorder a row (a right-to-left override) nor pass for another (a zero-width space).
 * Line feeds stay: a page folds them into a space unless it shows preformatted text.
 */
function escapeHtml(text: string): string {
  return printable(text, { keepLineFeeds: true }).replace(
    /[&<>"'`]/g,
    (character) => ESCAPES[character] ?? character,
  );
}

function render(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.text;
  if (Array.isArray(value)) return (value as readonly HtmlValue[]).map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

/** `html\`<td>${text}</td>\``: every `${...}` is escaped unless it is SafeHtml (or a list of it). */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): SafeHtml {
  let text = strings[0] ?? '';
  values.forEach((value, index) => {
    text += render(value) + (strings[index + 1] ?? '');
  });
  return new SafeHtml(text);
}
