import { readFileSync } from 'node:fs';
import {
  buildSchema,
  getIntrospectionQuery,
  graphqlSync,
  Kind,
  parse,
  printSchema,
  TypeInfo,
  validate,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { JOB_KIND_NEEDS } from '../../../src/cli/doctor/job-kind-needs.js';
import * as activity from '../../../src/platform/graphql/activity-operations.js';
import * as clusters from '../../../src/platform/graphql/cluster-operations.js';
import { documentFacts } from '../../../src/platform/graphql/graphql-client.js';
import { OPTIONAL_FIELDS } from '../../../src/platform/graphql/optional-fields.js';
import { platformSchema } from '../../../src/platform/graphql/schema/platform-schema.js';
import { PLATFORM_SCHEMA_SDL } from '../../../src/platform/graphql/schema/platform-schema-sdl.js';
import {
  SchemaSubsetError,
  readPublishedSchema,
  schemaSubset,
} from '../../../src/platform/graphql/schema/schema-subset.js';
import * as serviceAccounts from '../../../src/platform/graphql/service-account-operations.js';
import * as sla from '../../../src/platform/graphql/sla-operations.js';
import * as snapshots from '../../../src/platform/graphql/snapshot-operations.js';
import * as workloads from '../../../src/platform/graphql/workload-operations.js';

/** Every operation document of paw's client modules (fragments alone are not sent). */
const CLIENT_DOCUMENTS = [activity, clusters, serviceAccounts, sla, snapshots, workloads]
  .flatMap((module): unknown[] => Object.values(module))
  .filter(
    (value): value is DocumentNode =>
      typeof value === 'object' &&
      value !== null &&
      (value as DocumentNode).kind === Kind.DOCUMENT &&
      (value as DocumentNode).definitions.some((d) => d.kind === Kind.OPERATION_DEFINITION),
  );

/** Documents of the client that no job kind sends: `paw accounts` only. */
const COMMAND_ONLY = [
  serviceAccounts.createServiceAccount,
  serviceAccounts.updateRoleAssignments,
  serviceAccounts.deleteServiceAccounts,
];

describe("the platform's published schema, paw's part", () => {
  it('is the same text in platform-schema.graphql and in the module compiled code reads', () => {
    const file = readFileSync(
      new URL('../../../src/platform/graphql/schema/platform-schema.graphql', import.meta.url),
      'utf8',
    );
    expect(file).toBe(PLATFORM_SCHEMA_SDL);
    expect(Object.keys(platformSchema().getTypeMap()).length).toBeGreaterThan(90);
  });

  it('validates every document paw can send, the doctor probes included', () => {
    const probes = Object.values(JOB_KIND_NEEDS).flatMap((needs) =>
      needs.graphql.map((need) => need.probe),
    );
    expect(CLIENT_DOCUMENTS.length).toBeGreaterThanOrEqual(16);
    for (const document of [...CLIENT_DOCUMENTS, ...probes]) {
      const errors = validate(platformSchema(), document).map((error) => error.message);
      expect({ document: documentFacts(document).operationName, errors }).toEqual({
        document: documentFacts(document).operationName,
        errors: [],
      });
    }
  });

  it('refuses a field the platform does not publish, naming it', () => {
    const wrong = parse(
      `query x($input: MssqlJobStatusInput!) { mssqlJobStatus(input: $input) { id } }`,
    );
    expect(validate(platformSchema(), wrong).map((error) => error.message)).toEqual([
      'Unknown type "MssqlJobStatusInput".',
    ]);
    const interfaceField = parse(
      `query y { snapshotOfASnappableConnection(workloadId: "w") { nodes { slaDomain { id } } } }`,
    );
    expect(validate(platformSchema(), interfaceField).map((error) => error.message)).toEqual([
      'Cannot query field "slaDomain" on type "GenericSnapshot". Did you mean to use an inline fragment on "CdmSnapshot" or "PolarisSnapshot"?',
    ]);
  });

  it("lists as optional only fields that paw's documents select, on the type they select them on", () => {
    const selected = new Set<string>();
    for (const document of CLIENT_DOCUMENTS) {
      const types = new TypeInfo(platformSchema());
      visit(
        document,
        visitWithTypeInfo(types, {
          Field(node) {
            const parent = types.getParentType();
            if (parent != null) selected.add(`${parent.name}.${node.name.value}`);
          },
        }),
      );
    }
    expect([...OPTIONAL_FIELDS].filter((field) => !selected.has(field))).toEqual([]);
    expect(OPTIONAL_FIELDS.has('GlobalSlaReply.protectedObjectCount')).toBe(true);
  });

  it("leaves no document out of the doctor's comparison with an account's schema", () => {
    const checked = new Set(Object.values(JOB_KIND_NEEDS).flatMap((needs) => needs.documents));
    const unchecked = CLIENT_DOCUMENTS.filter(
      (document) => !checked.has(document) && !COMMAND_ONLY.includes(document),
    ).map((document) => documentFacts(document).operationName);
    expect(unchecked).toEqual([]);
  });
});

describe('schemaSubset: the refresh copies the listed part of a published schema', () => {
  const PUBLISHED = `
    scalar UUID
    type Query { things(first: Int, filter: ThingFilter, sortBy: ThingSort): [Thing!]! other: String }
    input ThingFilter { id: [UUID!] kind: Kind nested: Nested }
    input Nested { deep: Boolean }
    enum Kind { A B C }
    enum ThingSort { NAME DATE }
    enum Unused { X }
    interface Thing { id: UUID! name: String! size: Int }
    type BigThing implements Thing { id: UUID! name: String! size: Int weight: Float }
    type SmallThing implements Thing { id: UUID! name: String! size: Int }
  `;

  it('keeps listed fields with all their arguments, and input types and enums whole', () => {
    const sdl = schemaSubset(readPublishedSchema(PUBLISHED), {
      Query: ['things'],
      Thing: ['id', 'name'],
      BigThing: ['weight'],
    });
    expect(sdl).toBe(
      [
        'type BigThing implements Thing {',
        '  id: UUID!',
        '  name: String!',
        '  weight: Float',
        '}',
        '',
        'enum Kind {',
        '  A',
        '  B',
        '  C',
        '}',
        '',
        'input Nested {',
        '  deep: Boolean',
        '}',
        '',
        'type Query {',
        '  things(first: Int, filter: ThingFilter, sortBy: ThingSort): [Thing!]!',
        '}',
        '',
        'interface Thing {',
        '  id: UUID!',
        '  name: String!',
        '}',
        '',
        'input ThingFilter {',
        '  id: [UUID!]',
        '  kind: Kind',
        '  nested: Nested',
        '}',
        '',
        'enum ThingSort {',
        '  DATE',
        '  NAME',
        '}',
        '',
        'scalar UUID',
        '',
      ].join('\n'),
    );
  });

  it('gives the same subset from an introspection answer as from SDL', () => {
    const fields = { Query: ['things'], Thing: ['id'], SmallThing: ['size'] };
    const introspection = graphqlSync({
      schema: buildSchema(PUBLISHED),
      source: getIntrospectionQuery(),
    });
    expect(schemaSubset(readPublishedSchema(JSON.stringify(introspection)), fields)).toBe(
      schemaSubset(readPublishedSchema(PUBLISHED), fields),
    );
    expect(
      printSchema(buildSchema(schemaSubset(readPublishedSchema(PUBLISHED), fields))),
    ).toContain('type SmallThing implements Thing');
  });

  it('stops on a name the published schema lacks, and on an interface with no listed implementation', () => {
    const published = readPublishedSchema(PUBLISHED);
    expect(() => schemaSubset(published, { Query: ['things', 'invented'], Thing: ['id'] })).toThrow(
      SchemaSubsetError,
    );
    expect(() => schemaSubset(published, { Query: ['things', 'invented'], Thing: ['id'] })).toThrow(
      'the published type Query has no field invented',
    );
    expect(() => schemaSubset(published, { Query: ['things'], Thing: ['id'] })).toThrow(
      'the interface Thing is used but none of its implementations is listed',
    );
    expect(() =>
      schemaSubset(published, { Query: ['things'], Thing: ['id'], Ghost: ['x'] }),
    ).toThrow('the published schema has no type Ghost');
    expect(() => readPublishedSchema('{"data": {}}')).toThrow('the JSON has no __schema');
  });
});
