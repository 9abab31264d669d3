// Conformance tests read JSON bodies of many shapes and assert each: `any` is the honest type.
/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument */
import { readFile } from 'node:fs/promises';
import {
  buildClientSchema,
  buildSchema,
  getIntrospectionQuery,
  lexicographicSortSchema,
  printSchema,
  type GraphQLSchema,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemaDifferences } from './schema-differences.js';
import { startTestSimulator, type TestSimulator } from '../simulator-fixture.js';

/** The part of the platform's published schema that paw uses (generated; never edited). */
const PUBLISHED = new URL(
  '../../../src/platform/graphql/schema/platform-schema.graphql',
  import.meta.url,
);

/**
 * The simulator serves exactly the published schema: introspected through its endpoint as any
 * client would (a bearer token, the standard introspection query), every type, field, argument
 * and enum value is the published one, with the same type and nullability.
 */
describe('GraphQL: the schema the simulator serves', () => {
  let t: TestSimulator;
  let published: GraphQLSchema;

  beforeAll(async () => {
    t = await startTestSimulator({ workloads: 5 });
    published = buildSchema(await readFile(PUBLISHED, 'utf8'));
  });
  afterAll(() => t.close());

  const introspect = async (token?: string) =>
    t.api('POST', '/api/graphql', {
      ...(token === undefined ? {} : { token }),
      json: { query: getIntrospectionQuery({ inputValueDeprecation: true }) },
    });

  it('answers introspection with a bearer token, and serves the published schema: 0 differences', async () => {
    const response = await introspect(await t.token());
    expect(response.status).toBe(200);
    expect(response.body.errors).toBeUndefined();
    const served = buildClientSchema(response.body.data);
    expect(schemaDifferences(served, published)).toEqual([]);
    // The same, as whole SDL (the walk above names each difference; this catches what it skips).
    expect(printSchema(lexicographicSortSchema(served))).toBe(
      printSchema(lexicographicSortSchema(published)),
    );
  });

  it('refuses introspection without a token, as any query', async () => {
    const response = await introspect();
    expect(response.status).toBe(401);
  });
});
