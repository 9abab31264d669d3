import { buildSchema, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { AnswerMismatch, decodeAnswer } from '../../../src/platform/graphql/decode-answer.js';

/** A schema shaped like the platform's (connections, an interface, a Long), small enough to read. */
const SCHEMA = buildSchema(`
  scalar Long
  interface Snapshot { id: String! date: String! }
  type CdmSnapshot implements Snapshot { id: String! date: String! sla: Sla }
  type OtherSnapshot implements Snapshot { id: String! date: String! }
  type Sla { id: String! }
  enum Status { Success Failure }
  type Row { id: String! name: String! cluster: Cluster size: Long status: Status! tags: [String!] }
  type Cluster { id: String! }
  type RowConnection { count: Int! nodes: [Row!]! }
  type Query {
    rows: RowConnection!
    snapshots: [Snapshot!]!
    secret: Reply!
  }
  type Reply { clientId: String! clientSecret: String! }
`);

const ROWS = parse(
  `query rows { rows { count nodes { id name cluster { id } size status tags } } }`,
);

describe('decodeAnswer: a GraphQL answer read against the published schema', () => {
  it('skips and reports a row whose never-null field came null, and keeps the rest of the page', () => {
    const { data, skipped } = decodeAnswer(SCHEMA, ROWS, {
      rows: {
        count: 3,
        nodes: [
          { id: 'a', name: 'A', cluster: null, size: 1, status: 'Success', tags: [] },
          { id: 'b', name: null, cluster: { id: 'c' }, size: 2, status: 'Failure', tags: null },
          { id: 'c', name: 'C', cluster: { id: 'c' }, size: '9007199254740993', status: 'New' },
        ],
      },
    });
    expect(data).toEqual({
      rows: {
        count: 3,
        nodes: [
          { id: 'a', name: 'A', cluster: null, size: 1, status: 'Success', tags: [] },
          // A Long past 2^53 as a string of digits, an enum word the schema does not (yet) have,
          // and a nullable field the answer left out: all fine.
          {
            id: 'c',
            name: 'C',
            cluster: { id: 'c' },
            size: '9007199254740993',
            status: 'New',
            tags: null,
          },
        ],
      },
    });
    expect(skipped).toEqual([
      {
        path: 'rows.nodes[1]',
        problem: 'rows.nodes[1].name: is null; the schema says it is never null',
      },
    ]);
  });

  it('fails the answer when what is wrong is not in a list: nothing can be dropped', () => {
    const run = () => decodeAnswer(SCHEMA, ROWS, { rows: { count: null, nodes: [] } });
    expect(run).toThrow(AnswerMismatch);
    expect(run).toThrow('rows.count: is null; the schema says it is never null');
    expect(() => decodeAnswer(SCHEMA, ROWS, { rows: { count: '3', nodes: [] } })).toThrow(
      'rows.count: is a string, not an Int',
    );
    expect(() => decodeAnswer(SCHEMA, ROWS, { rows: [] })).toThrow(
      'rows: is a list, not a RowConnection object',
    );
  });

  it('reads an interface by its __typename: fields of a fragment on another type are not asked of it', () => {
    const document = parse(`
      query snapshots { snapshots { __typename id date ... on CdmSnapshot { sla { id } } } }
    `);
    const { data, skipped } = decodeAnswer(SCHEMA, document, {
      snapshots: [
        { __typename: 'CdmSnapshot', id: '1', date: 'd', sla: { id: 's' } },
        { __typename: 'OtherSnapshot', id: '2', date: 'd' },
        { __typename: 'CdmSnapshot', id: '3', date: 'd', sla: { id: 7 } },
      ],
    });
    expect(data).toEqual({
      snapshots: [
        { __typename: 'CdmSnapshot', id: '1', date: 'd', sla: { id: 's' } },
        { __typename: 'OtherSnapshot', id: '2', date: 'd' },
      ],
    });
    expect(skipped).toEqual([
      { path: 'snapshots[2]', problem: 'snapshots[2].sla.id: is a number, not a String' },
    ]);
  });

  it('never puts a value of the answer in its messages (an answer can carry a secret)', () => {
    const document = parse(`query rotate { secret { clientId clientSecret } }`);
    const secret = 'hunter2-very-secret';
    const mismatch = (() => {
      try {
        decodeAnswer(SCHEMA, document, { secret: { clientId: secret, clientSecret: 42 } });
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(mismatch).toBeInstanceOf(AnswerMismatch);
    expect(String(mismatch)).toContain('secret.clientSecret: is a number, not a String');
    expect(String(mismatch)).not.toContain(secret);
  });
});
