import type { SimServiceAccount } from '../accounts.js';
import { isoTime } from '../clock.js';
import { fieldError, requireGrant, type GraphqlContext } from './graphql-context.js';
import { jobResolvers } from './job-resolvers.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_PAGE = 1000;

function accountView(context: GraphqlContext, account: SimServiceAccount) {
  return {
    clientId: account.clientId,
    name: account.name,
    description: account.description,
    integrationId: account.integrationId,
    integrationName: account.integrationName,
    lastLogin: account.lastLogin === null ? null : isoTime(account.lastLogin),
    roles: account.roleIds.flatMap((roleId) => {
      const role = context.state.accounts.roles.get(roleId);
      return role === undefined
        ? []
        : [{ id: role.id, name: role.name, description: `${role.name} role` }];
    }),
  };
}

function requireRoleIds(context: GraphqlContext, roleIds: readonly string[]): void {
  for (const roleId of roleIds) {
    if (!UUID.test(roleId)) throw fieldError(400, `Invalid role id ${roleId}: role ids are UUIDs`);
    if (!context.state.accounts.roles.has(roleId))
      throw fieldError(404, `Role ${roleId} not found`);
  }
}

/** Accepts the bare uuid (as documented) or `client|<uuid>`. */
function requireAccount(context: GraphqlContext, id: string): SimServiceAccount {
  const account = context.state.accounts.findServiceAccount(id);
  if (account === undefined) throw fieldError(404, `Service account ${id} not found`);
  return account;
}

function encodeCursor(account: SimServiceAccount): string {
  return Buffer.from(`sa:${account.uuid}`).toString('base64url');
}

/** The service-account operations of the spec. */
const serviceAccountResolvers = {
  serviceAccounts(
    args: {
      first?: number | null;
      after?: string | null;
      searchText?: string | null;
      roleIds?: readonly string[] | null;
      sortBy?: 'NAME' | 'LAST_LOGIN' | null;
      sortOrder?: 'ASC' | 'DESC' | null;
    },
    context: GraphqlContext,
  ) {
    requireGrant(context, 'VIEW_ACCESS');
    const first = args.first ?? 50;
    if (first < 0) throw fieldError(400, 'first must not be negative');
    const needle = args.searchText?.toLowerCase();
    const roleIds = args.roleIds ?? undefined;
    const direction = args.sortOrder === 'DESC' ? -1 : 1;
    const sorted = [...context.state.accounts.serviceAccounts.values()]
      .filter(
        (account) =>
          (needle === undefined || account.name.toLowerCase().includes(needle)) &&
          (roleIds === undefined || account.roleIds.some((roleId) => roleIds.includes(roleId))),
      )
      .sort((a, b) => {
        const byField =
          args.sortBy === 'LAST_LOGIN'
            ? (a.lastLogin ?? 0) - (b.lastLogin ?? 0)
            : a.name.localeCompare(b.name);
        return direction * (byField || a.uuid.localeCompare(b.uuid));
      });
    let start = 0;
    if (args.after != null) {
      const index = sorted.findIndex((account) => encodeCursor(account) === args.after);
      if (index < 0) throw fieldError(400, 'Invalid cursor: pass the endCursor of a previous page');
      start = index + 1;
    }
    const page = sorted.slice(start, start + Math.min(first, MAX_PAGE));
    const nodes = page.map((account) => accountView(context, account));
    const firstAccount = page[0];
    const lastAccount = page.at(-1);
    return {
      count: sorted.length,
      nodes,
      edges: page.map((account, index) => ({ cursor: encodeCursor(account), node: nodes[index] })),
      pageInfo: {
        startCursor: firstAccount === undefined ? null : encodeCursor(firstAccount),
        endCursor: lastAccount === undefined ? null : encodeCursor(lastAccount),
        hasNextPage: start + page.length < sorted.length,
        hasPreviousPage: start > 0,
      },
    };
  },

  createServiceAccount(
    args: { input: { name: string; description?: string | null; roleIds: readonly string[] } },
    context: GraphqlContext,
  ) {
    requireGrant(context, 'MANAGE_ACCESS');
    const { state } = context;
    const name = args.input.name.trim();
    if (name === '') throw fieldError(400, 'name must not be empty');
    const lower = name.toLowerCase();
    for (const account of state.accounts.serviceAccounts.values()) {
      if (account.name.toLowerCase() === lower)
        throw fieldError(400, `A service account named ${name} already exists`);
    }
    requireRoleIds(context, args.input.roleIds);
    const account = state.accounts.createServiceAccount({
      name,
      ...(args.input.description == null ? {} : { description: args.input.description }),
      roleIds: args.input.roleIds,
    });
    return {
      clientId: account.clientId,
      clientSecret: account.secret,
      accessTokenUri: state.answeredAccessTokenUri ?? state.accessTokenUri,
      name: account.name,
    };
  },

  rotateServiceAccountSecret(args: { input: { id: string } }, context: GraphqlContext) {
    requireGrant(context, 'MANAGE_ACCESS');
    const account = requireAccount(context, args.input.id);
    const secret = context.state.accounts.rotateSecret(account);
    return {
      clientId: account.clientId,
      clientSecret: secret,
      accessTokenUri: context.state.answeredAccessTokenUri ?? context.state.accessTokenUri,
      name: account.name,
      suspendedTprPolicyIds: [],
    };
  },

  updateRoleAssignments(
    args: {
      userIds?: readonly string[] | null;
      groupIds?: readonly string[] | null;
      roleIds: readonly string[];
    },
    context: GraphqlContext,
  ): boolean {
    requireGrant(context, 'MANAGE_ACCESS');
    const { accounts } = context.state;
    const userIds = args.userIds ?? [];
    if (userIds.length === 0 && (args.groupIds ?? []).length === 0) {
      throw fieldError(400, 'Give userIds or groupIds');
    }
    requireRoleIds(context, args.roleIds);
    // Resolve everything first: an unknown id changes nothing.
    const targets = userIds.map((userId) => {
      const account = accounts.findServiceAccount(userId);
      if (account !== undefined) return account;
      const user =
        accounts.users.get(userId) ??
        [...accounts.users.values()].find((candidate) => candidate.email === userId);
      if (user === undefined) throw fieldError(404, `User or service account ${userId} not found`);
      return user;
    });
    for (const target of targets) target.roleIds = [...new Set(args.roleIds)];
    return true;
  },

  deleteServiceAccountsFromAccount(
    args: { input: { ids: readonly string[] } },
    context: GraphqlContext,
  ): boolean {
    requireGrant(context, 'MANAGE_ACCESS');
    const { state } = context;
    const targets = args.input.ids.map((id) => requireAccount(context, id));
    for (const account of targets) {
      state.accounts.deleteServiceAccount(account.uuid);
      state.tokens.revokeAllOf(
        (principal) => principal.kind === 'serviceAccount' && principal.uuid === account.uuid,
      );
      state.clusterSessions.deleteAllOf(account.clientId);
    }
    return true;
  },
};

/** The root value: one resolver per operation. */
export const rootResolvers = { ...serviceAccountResolvers, ...jobResolvers };
