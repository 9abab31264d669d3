import type { FastifyInstance } from 'fastify';

/**
 * JSON and form bodies, the way the platform takes them: the token endpoints accept both, and
 * an empty JSON body (a bodiless POST that still says `application/json`) means "no body"
 * rather than a parse error, so `POST …/snapshots` with no fields works from any client.
 */
export function registerBodyParsers(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    try {
      done(null, JSON.parse(text));
    } catch (error) {
      const parseError = error instanceof Error ? error : new Error(String(error));
      done(
        Object.assign(new Error(`the body is not valid JSON: ${parseError.message}`), {
          statusCode: 400,
        }),
        undefined,
      );
    }
  });
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => {
      const text = typeof body === 'string' ? body : body.toString('utf8');
      const fields: Record<string, string> = {};
      // The first value of a repeated field wins.
      for (const [key, value] of new URLSearchParams(text))
        if (!(key in fields)) fields[key] = value;
      done(null, fields);
    },
  );
}
