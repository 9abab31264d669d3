import type { SimServiceAccount } from '../accounts.js';
import { sortedConnection, type Orderings, type SortedConnectionArgs } from './connection.js';
import { fieldError, given, requireGrant, type GraphqlContext } from './graphql-context.js';
import { serviceAccountView } from './graphql-views.js';
import { jobResolvers } from './job-resolvers.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Service accounts sort by name (the schema's one `ServiceAccountSortBy`). */
const ACCOUNT_ORDERINGS: Orderings<SimServiceAccount> = {
  what: 'service accounts',
  keys: { NAME: (account) => [account.name] },
  defaultSortBy: 'NAME',
  defaultOrder: () => 'ASC',
  tieBreak: (account) => account.uuid,
};

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

/** The service-account operations of the spec. */
const serviceAccountResolvers = {
  serviceAccounts(
    args: SortedConnectionArgs & {
      searchText?: string | null;
      roleIds?: readonly string[] | null;
    },
    context: GraphqlContext,
  ) {
    requireGrant(context, 'VIEW_ACCESS');
    const { state } = context;
    const needle = args.searchText?.toLowerCase() || undefined;
    const roleIds = given(args.roleIds);
    return sortedConnection(
      'service-accounts',
      [...state.accounts.serviceAccounts.values()],
      ACCOUNT_ORDERINGS,
      args,
      (account) =>
        (needle === undefined || account.name.toLowerCase().includes(needle)) &&
        (roleIds === undefined || account.roleIds.some((roleId) => roleIds.includes(roleId))),
      (account) => serviceAccountView(state, account),
    );
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
      suspendedTprPolicyIds: [...context.state.suspendedTprPolicyIds],
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
    // Both lists are optional in the schema: the vendor's own sample sends roleIds alone, which
    // assigns the roles to nobody (the roles are checked all the same).
    const userIds = args.userIds ?? [];
    const groupIds = args.groupIds ?? [];
    requireRoleIds(context, args.roleIds);
    // The simulator's account has users and service accounts, no groups.
    const [group] = groupIds;
    if (group !== undefined) throw fieldError(404, `Group ${group} not found`);
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
