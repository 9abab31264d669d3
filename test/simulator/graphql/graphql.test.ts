// Conformance tests read JSON bodies of many shapes and assert each: `any` is the honest type.
/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestSimulator, type TestSimulator } from '../simulator-fixture.js';
import { call, type HttpResult } from '../http.js';

const LIST = /* GraphQL */ `
  query List($first: Int, $after: String, $searchText: String, $roleIds: [UUID!]) {
    serviceAccounts(first: $first, after: $after, searchText: $searchText, roleIds: $roleIds) {
      count
      nodes {
        clientId
        name
        description
        integrationId
        integrationName
        lastLogin
        roles {
          id
          name
        }
      }
      pageInfo {
        startCursor
        endCursor
        hasNextPage
        hasPreviousPage
      }
    }
  }
`;

const CREATE = /* GraphQL */ `
  mutation Create($input: CreateServiceAccountInput!) {
    createServiceAccount(input: $input) {
      clientId
      clientSecret
      accessTokenUri
      name
    }
  }
`;

const ROTATE = /* GraphQL */ `
  mutation Rotate($id: String!) {
    rotateServiceAccountSecret(input: { id: $id }) {
      clientId
      clientSecret
      accessTokenUri
      name
      suspendedTprPolicyIds
    }
  }
`;

describe('GraphQL', () => {
  let t: TestSimulator;
  let adminToken: string;
  let roleId: (name: string) => string;

  beforeAll(async () => {
    t = await startTestSimulator({ workloads: 10 });
    adminToken = await t.token();
    roleId = (name) => t.fixtures.roles.find((role) => role.name === name)?.id ?? '';
  });
  afterAll(() => t.close());

  const postGraphql = (
    query: string,
    variables?: Record<string, unknown>,
    token = adminToken,
    extra = {},
  ): Promise<HttpResult> =>
    t.api('POST', '/api/graphql', {
      token,
      json: { query, ...(variables === undefined ? {} : { variables }), ...extra },
    });

  const tokenWith = async (clientId: string, clientSecret: string): Promise<HttpResult> =>
    t.api('POST', '/api/client_token', {
      json: { client_id: clientId, client_secret: clientSecret },
    });

  it('lists service accounts with the real ServiceAccount fields and roles', async () => {
    const response = await postGraphql(LIST);
    expect(response.status).toBe(200);
    expect(response.body.errors).toBeUndefined();
    const { count, nodes } = response.body.data.serviceAccounts;
    expect(count).toBe(4);
    const automation = nodes.find((node: { name: string }) => node.name === 'paw-automation');
    expect(automation).toEqual({
      clientId: t.fixtures.serviceAccounts.admin.client_id,
      name: 'paw-automation',
      description: expect.any(String),
      integrationId: null,
      integrationName: null,
      lastLogin: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      roles: [{ id: roleId('Administrator'), name: 'Administrator' }],
    });
    const itsm = nodes.find((node: { name: string }) => node.name === 'itsm-integration');
    expect(itsm).toMatchObject({
      integrationId: 4711,
      integrationName: 'ServiceNow',
      lastLogin: null,
    });
  });

  it("has no id field on ServiceAccount: asking for one is refused the platform's way (HTTP 200, code 400)", async () => {
    const response = await postGraphql('{ serviceAccounts { nodes { id } } }');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      code: 400,
      uri: '/api/graphql',
      traceSpan: {
        traceId: expect.any(String),
        operation: '/api/graphql',
        spanId: expect.any(String),
      },
      message: expect.stringMatching(
        /^\[QueryAnalysisError\] Query does not pass validation\. Violations:\n\nCannot query field 'id' on type 'ServiceAccount'\. .*\(line 1, column 29\)$/,
      ),
    });
  });

  it('pages, searches and filters by role', async () => {
    const first = await postGraphql(LIST, { first: 3 });
    const page = first.body.data.serviceAccounts;
    expect(page.nodes).toHaveLength(3);
    expect(page.pageInfo.hasNextPage).toBe(true);
    const second = await postGraphql(LIST, { first: 3, after: page.pageInfo.endCursor });
    expect(second.body.data.serviceAccounts.nodes).toHaveLength(page.count - 3);
    expect(second.body.data.serviceAccounts.pageInfo).toMatchObject({
      hasNextPage: false,
      hasPreviousPage: true,
    });
    const search = await postGraphql(LIST, { searchText: 'READONLY' });
    expect(
      search.body.data.serviceAccounts.nodes.map((node: { name: string }) => node.name),
    ).toEqual(['paw-readonly']);
    const byRole = await postGraphql(LIST, { roleIds: roleId('Snapshot Operator') });
    expect(
      byRole.body.data.serviceAccounts.nodes.map((node: { name: string }) => node.name),
    ).toEqual(['itsm-integration']);
  });

  it('creates a service account whose credentials work at once', async () => {
    const response = await postGraphql(CREATE, {
      input: {
        name: 'gql-created',
        description: 'from a test',
        roleIds: [roleId('Snapshot Operator')],
      },
    });
    expect(response.status).toBe(200);
    const created = response.body.data.createServiceAccount;
    expect(created).toEqual({
      clientId: expect.stringMatching(
        /^client\|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
      ),
      clientSecret: expect.any(String),
      accessTokenUri: `${t.sim.baseUrl}/api/client_token`,
      name: 'gql-created',
    });
    const token = await tokenWith(created.clientId, created.clientSecret);
    expect(token.status).toBe(200);
    expect(token.body.client_id).toBe(created.clientId);
    // Snapshot Operator: may take snapshots, may not manage SLA Domains.
    const vm = t.fixtures.workloads.samples.vsphereVm ?? '';
    const snapshot = await t.rest('POST', `/workloads/${vm}/snapshots`, {
      token: token.body.access_token,
    });
    expect(snapshot.status).toBe(202);
    const pause = await t.rest('POST', `/sla-domains/${t.fixtures.slaDomains[0]?.id ?? ''}/pause`, {
      token: token.body.access_token,
    });
    expect(pause.status).toBe(403);
  });

  it('answers field errors with HTTP 200, data null and errors[] carrying extensions.code', async () => {
    const unknownRole = await postGraphql(CREATE, {
      input: { name: 'bad-role', roleIds: ['00000000-0000-4000-8000-000000000000'] },
    });
    expect(unknownRole.status).toBe(200);
    expect(unknownRole.body.data).toBeNull();
    expect(unknownRole.body.errors).toEqual([
      expect.objectContaining({
        message: expect.stringContaining('Role'),
        path: ['createServiceAccount'],
        locations: expect.any(Array),
        extensions: expect.objectContaining({ code: 404, trace: expect.any(Object) }),
      }),
    ]);
    const notUuid = await postGraphql(CREATE, { input: { name: 'bad-role', roleIds: ['admin'] } });
    expect(notUuid.body.errors[0].extensions.code).toBe(400);
    const duplicate = await postGraphql(CREATE, { input: { name: 'paw-readonly', roleIds: [] } });
    expect(duplicate.body.errors[0].extensions.code).toBe(400);
  });

  it('rotates a secret by bare uuid: the old secret fails at once, tokens already issued keep working', async () => {
    const created = (
      await postGraphql(CREATE, {
        input: { name: 'to-rotate', roleIds: [roleId('Read Only Admin')] },
      })
    ).body.data.createServiceAccount;
    const oldToken = (await tokenWith(created.clientId, created.clientSecret)).body.access_token;
    const uuid = (created.clientId as string).slice('client|'.length);

    const rotated = await postGraphql(ROTATE, { id: uuid });
    expect(rotated.status).toBe(200);
    const reply = rotated.body.data.rotateServiceAccountSecret;
    expect(reply).toEqual({
      clientId: created.clientId,
      clientSecret: expect.any(String),
      accessTokenUri: `${t.sim.baseUrl}/api/client_token`,
      name: 'to-rotate',
      suspendedTprPolicyIds: [],
    });
    expect(reply.clientSecret).not.toBe(created.clientSecret);

    const withOld = await tokenWith(created.clientId, created.clientSecret);
    expect(withOld.status).toBe(401);
    expect(withOld.body).toEqual({
      code: 401,
      uri: '/api/client_token',
      message: 'UNAUTHENTICATED: incorrect client secret',
    });
    expect((await tokenWith(created.clientId, reply.clientSecret)).status).toBe(200);
    expect((await t.api('GET', '/api/rest/workloads', { token: oldToken })).status).toBe(200);

    // Cluster sessions refuse the old secret too.
    const cluster = t.fixtures.clusters[0]?.baseUrl ?? '';
    const session = await call('POST', `${cluster}/api/v1/service_account/session`, {
      json: { clientId: created.clientId, clientSecret: created.clientSecret },
    });
    expect(session.status).toBe(401);

    // The client|<uuid> form is accepted too; an unknown id is a 404 field error.
    expect(
      (await postGraphql(ROTATE, { id: created.clientId })).body.data.rotateServiceAccountSecret
        .clientId,
    ).toBe(created.clientId);
    const unknown = await postGraphql(ROTATE, { id: '00000000-0000-4000-8000-000000000000' });
    expect(unknown.status).toBe(200);
    expect(unknown.body.errors[0].extensions.code).toBe(404);
  });

  it('overwrites role assignments, taking userIds as a single value or a list', async () => {
    const readOnly = t.fixtures.serviceAccounts.readOnly.client_id;
    const literal = await postGraphql(
      `mutation { updateRoleAssignments(userIds: "${readOnly}", roleIds: ["${roleId('SLA Maintenance Operator')}"]) }`,
    );
    expect(literal.status).toBe(200);
    expect(literal.body).toEqual({ data: { updateRoleAssignments: true } });
    const listed = await postGraphql(LIST, { searchText: 'paw-readonly' });
    expect(listed.body.data.serviceAccounts.nodes[0].roles).toEqual([
      { id: roleId('SLA Maintenance Operator'), name: 'SLA Maintenance Operator' },
    ]);

    const variables = await postGraphql(
      'mutation Assign($userIds: [String!], $roleIds: [String!]!) { updateRoleAssignments(userIds: $userIds, roleIds: $roleIds) }',
      { userIds: readOnly, roleIds: [roleId('Read Only Admin'), roleId('Snapshot Operator')] },
    );
    expect(variables.body).toEqual({ data: { updateRoleAssignments: true } });
    const asList = await postGraphql(
      'mutation Assign($userIds: [String!], $roleIds: [String!]!) { updateRoleAssignments(userIds: $userIds, roleIds: $roleIds) }',
      { userIds: [readOnly], roleIds: [roleId('Read Only Admin')] },
    );
    expect(asList.body).toEqual({ data: { updateRoleAssignments: true } });
    const after = await postGraphql(LIST, { searchText: 'paw-readonly' });
    expect(after.body.data.serviceAccounts.nodes[0].roles).toEqual([
      { id: roleId('Read Only Admin'), name: 'Read Only Admin' },
    ]);

    const unknown = await postGraphql(
      `mutation { updateRoleAssignments(userIds: ["client|00000000-0000-4000-8000-000000000000"], roleIds: ["${roleId('Read Only Admin')}"]) }`,
    );
    expect(unknown.body.data).toBeNull();
    expect(unknown.body.errors[0].extensions.code).toBe(404);
  });

  it('deletes service accounts: they vanish, their tokens stop working', async () => {
    const created = (
      await postGraphql(CREATE, {
        input: { name: 'to-delete', roleIds: [roleId('Read Only Admin')] },
      })
    ).body.data.createServiceAccount;
    const token = (await tokenWith(created.clientId, created.clientSecret)).body.access_token;
    const uuid = (created.clientId as string).slice('client|'.length);
    const deleted = await postGraphql(
      'mutation Delete($ids: [String!]!) { deleteServiceAccountsFromAccount(input: { ids: $ids }) }',
      { ids: [uuid] },
    );
    expect(deleted.body).toEqual({ data: { deleteServiceAccountsFromAccount: true } });
    expect(
      (await postGraphql(LIST, { searchText: 'to-delete' })).body.data.serviceAccounts.count,
    ).toBe(0);
    expect((await t.api('GET', '/api/rest/workloads', { token })).status).toBe(401);
    expect((await tokenWith(created.clientId, created.clientSecret)).status).toBe(401);
    const again = await postGraphql(
      'mutation Delete($ids: [String!]!) { deleteServiceAccountsFromAccount(input: { ids: $ids }) }',
      { ids: [uuid] },
    );
    expect(again.body.errors[0].extensions.code).toBe(404);
  });

  it('denies mutations to a read-only account with a 403 field error', async () => {
    const token = await t.token('readOnly');
    const read = await postGraphql(LIST, {}, token);
    expect(read.body.errors).toBeUndefined();
    const denied = await postGraphql(CREATE, { input: { name: 'nope', roleIds: [] } }, token);
    expect(denied.status).toBe(200);
    expect(denied.body.data).toBeNull();
    expect(denied.body.errors[0].extensions.code).toBe(403);
  });

  it('refuses malformed requests with HTTP 200 and a code 400 QueryAnalysisError body', async () => {
    const cases: [string, unknown][] = [
      ['syntax', { query: '{ serviceAccounts { ' }],
      ['unknown field', { query: '{ accounts { count } }' }],
      ['no query', { variables: {} }],
      ['not an object', ['query']],
      ['bad variables', { query: LIST, variables: { first: 'ten' } }],
      ['missing variable', { query: ROTATE }],
      ['ambiguous operation', { query: `${LIST} ${CREATE}` }],
    ];
    for (const [name, json] of cases) {
      const response = await t.api('POST', '/api/graphql', { token: adminToken, json });
      expect(response.status, name).toBe(200);
      expect(response.body.code, name).toBe(400);
      expect(response.body.data, name).toBeUndefined();
      expect(response.body.message, name).toMatch(/^\[QueryAnalysisError\] /);
    }
    const invalidJson = await t.api('POST', '/api/graphql', {
      token: adminToken,
      headers: { 'content-type': 'application/json' },
      json: undefined,
    });
    // An empty body is refused alike: every answer but the rate limit's is HTTP 200.
    expect(invalidJson.status).toBe(200);
    expect(invalidJson.body.code).toBe(400);
  });

  it('runs the operation named by operationName', async () => {
    const response = await postGraphql(
      `
        ${LIST}
        query Count {
          serviceAccounts {
            count
          }
        }
      `,
      undefined,
      adminToken,
      {
        operationName: 'Count',
      },
    );
    expect(response.status).toBe(200);
    expect(Object.keys(response.body.data.serviceAccounts)).toEqual(['count']);
  });
});
