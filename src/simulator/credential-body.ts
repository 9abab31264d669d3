/**
 * A parsed form or JSON body as a plain record, or an empty one when there was no body or it
 * was not an object (validation then names the missing fields).
 */
export function credentialBody(body: unknown): Record<string, unknown> {
  return typeof body === 'object' && body !== null && !Array.isArray(body)
    ? (body as Record<string, unknown>)
    : {};
}
