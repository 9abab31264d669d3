/**
 * The most bytes one answer of the platform may hold, by what it holds. The pod's memory limit
 * is 512 MiB and an answer is parsed whole, so each kind of answer gets what it needs and no
 * more: a parsed answer costs several times its size.
 */
export const AnswerBytes = {
  /** One object, a token, a session, a job's status, a mutation's result: a few KiB. */
  single: 1024 * 1024,
  /** A page of a list (1,000 items at most) or a GraphQL query: about a megabyte at most. */
  page: 8 * 1024 * 1024,
  /** The REST reference document (the OpenAPI description of the whole interface). */
  document: 16 * 1024 * 1024,
} as const;

export type AnswerSize = keyof typeof AnswerBytes;

/** Nesting the platform's answers never come near (a GraphQL answer is about ten deep). */
const MAX_ANSWER_DEPTH = 64;

/**
 * Objects and arrays cost far more to parse than their bytes (an empty `{}` in three bytes
 * takes about 100 bytes of heap): an answer may hold one per 16 characters, and this many
 * whatever its size. The platform's answers hold one per 60 characters or fewer.
 */
const CHARACTERS_PER_CONTAINER = 16;
const MIN_CONTAINERS = 10_000;

/**
 * Why `text` would cost too much to parse as JSON (nested deeper than {@link MAX_ANSWER_DEPTH},
 * or more objects and arrays than its length allows), or undefined when it would not. One
 * linear pass over the characters, before JSON.parse allocates anything; it checks only what
 * costs memory, and leaves whether the text is JSON at all to JSON.parse.
 */
export function answerCostProblem(text: string): string | undefined {
  const maxContainers = Math.max(MIN_CONTAINERS, text.length / CHARACTERS_PER_CONTAINER);
  let depth = 0;
  let containers = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c /* \ */) index++;
      else if (code === 0x22 /* " */) inString = false;
    } else if (code === 0x22) {
      inString = true;
    } else if (code === 0x7b /* { */ || code === 0x5b /* [ */) {
      depth++;
      containers++;
      if (depth > MAX_ANSWER_DEPTH) {
        return `the answer is nested deeper than ${MAX_ANSWER_DEPTH} levels`;
      }
      if (containers > maxContainers) {
        return `the answer holds more than ${Math.floor(maxContainers)} objects and arrays in ${text.length} characters`;
      }
    } else if (code === 0x7d /* } */ || code === 0x5d /* ] */) {
      depth--;
    }
  }
  return undefined;
}
