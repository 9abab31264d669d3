/**
 * Characters a terminal or a page acts on, or hides, instead of showing: the C0 controls (escape
 * sequences that clear the screen or set the window title start with ESC; a carriage return
 * overwrites the line; a line feed can fake a log line), DEL, the C1 controls (0x9b is a one-byte
 * CSI on some terminals), the Unicode marks that reorder or break lines (bidi marks, overrides and
 * isolates: U+061C, U+200E-200F, U+202A-202E, U+2066-2069; the line and paragraph separators),
 * and the invisible ones that make two names look the same (zero-width space, non-joiner and
 * joiner U+200B-200D, word joiner U+2060, and the byte-order mark U+FEFF).
 */
/* eslint-disable no-control-regex -- matching control characters is the point */
const UNSAFE =
  /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060\u2066-\u2069\ufeff]/g;

/** The same, but the line feed: for paw's own messages of several lines. */
const UNSAFE_BUT_LINE_FEED =
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060\u2066-\u2069\ufeff]/g;
/* eslint-enable no-control-regex */

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * Text from outside paw (Redis, the platform, a flag someone typed) made safe to print on a
 * terminal (and, escaped for HTML besides, on a page: see ops/dashboard/html.ts; and in a Slack
 * message: see job-kinds/notify/run-summary.ts): each character a terminal would act on is shown as its escape (`\x1b`, `\n`,
 * `\u202e`) instead, so a value can neither clear the screen, set the window title, overwrite a
 * line nor fake one. With `keepLineFeeds`, line feeds stay (for a message of several lines that
 * paw composed); everything else is escaped all the same. JSON output needs none of this.
 */
export function printable(text: string, options: { keepLineFeeds?: boolean } = {}): string {
  return text.replace(options.keepLineFeeds === true ? UNSAFE_BUT_LINE_FEED : UNSAFE, escape);
}

function escape(character: string): string {
  const named = NAMED[character];
  if (named !== undefined) return named;
  const code = character.charCodeAt(0);
  return code < 0x100
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}
