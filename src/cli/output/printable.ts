/**
 * Characters a terminal acts on instead of showing: the C0 controls (escape sequences that clear
 * the screen or set the window title start with ESC; a carriage return overwrites the line; a
 * line feed can fake a log line), DEL, the C1 controls (0x9b is a one-byte CSI on some
 * terminals), and the Unicode marks that reorder or break lines (bidi overrides and isolates,
 * the line and paragraph separators).
 */
/* eslint-disable no-control-regex -- matching control characters is the point */
const UNSAFE =
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** The same, but the line feed: for paw's own messages of several lines. */
const UNSAFE_BUT_LINE_FEED =
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/* eslint-enable no-control-regex */

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * Text from outside paw (Redis, the platform, a flag someone typed) made safe to print on a
 * terminal: each character a terminal would act on is shown as its escape (`\x1b`, `\n`,
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
