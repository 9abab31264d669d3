import { constants, existsSync } from 'node:fs';
import { access } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { Command } from 'commander';
import { UsageError } from '../../shared/usage-error.js';
import { sinkFolderProblem } from '../../definitions/sink-folder.js';
import { readCredentialsFile, writeCredentialsFile } from '../../platform/auth/credentials-file.js';
import { parseServiceAccountId } from '../../platform/graphql/service-account-id.js';
import type { NewServiceAccountSecret } from '../../platform/graphql/service-accounts.js';
import type { ServiceAccount } from '../../platform/graphql/service-account-operations.js';
import { printList, withListLimit, type ListLimitOptions } from '../list-limit.js';
import { collect, examples } from '../option-parsers.js';
import type { Output } from '../output/output.js';
import { formatFields, type Column } from '../output/table.js';
import {
  withPlatformClient,
  withPlatformOptions,
  type PlatformCommandOptions,
} from '../with-platform-client.js';

const accountColumns: Column<ServiceAccount>[] = [
  { header: 'client id', value: (a) => a.clientId },
  { header: 'name', value: (a) => a.name },
  { header: 'roles', value: (a) => (a.roles ?? []).map((role) => role.name ?? role.id) },
  { header: 'last login', value: (a) => a.lastLogin },
  { header: 'description', value: (a) => a.description },
];

interface SecretOptions extends PlatformCommandOptions {
  readonly out?: string;
  readonly printSecret?: boolean;
  readonly force?: boolean;
}

function withSecretOptions(command: Command): Command {
  return command
    .option(
      '--out <file>',
      "write the new credentials to FILE in the platform's credentials format (mode 0600)",
    )
    .option(
      '--print-secret',
      'also print the secret on standard output (it cannot be shown again later)',
    )
    .option('--force', "with --out: overwrite a file that holds another account's credentials");
}

/**
 * Checks, before the platform makes a secret that can never be shown again, that it will have
 * somewhere to go: a folder paw can write and others cannot, and no other account's
 * credentials in the way (unless `--force`). A link is written through to its target, as a
 * rotation's sink is. `account` is the account being rotated (none for a new one).
 */
async function prepareSecretDestination(
  options: SecretOptions,
  account: string | undefined,
): Promise<string | undefined> {
  if (options.out === undefined && !options.printSecret) {
    throw new UsageError(
      'the new secret can never be shown again: give --out FILE to store it (recommended) or --print-secret',
    );
  }
  if (options.out === undefined) return undefined;
  const file = resolve(options.out);
  try {
    await access(dirname(file), constants.W_OK);
  } catch {
    throw new UsageError(`--out ${options.out}: cannot write to ${dirname(file)}`);
  }
  const unsafe = await sinkFolderProblem(file);
  if (unsafe !== undefined)
    throw new UsageError(`--out ${options.out}: ${unsafe.message}; ${unsafe.fix}`);
  if (options.force !== true && existsSync(file)) {
    const holder = await readCredentialsFile(file).then(
      (credentials) => credentials.clientId,
      () => undefined,
    );
    const own =
      account === undefined
        ? undefined
        : parseServiceAccountId(account, 'rotateServiceAccountSecret').clientId;
    if (holder === undefined || holder !== own) {
      throw new UsageError(
        `--out ${options.out}: ${
          holder === undefined
            ? 'exists and is not a credentials file'
            : `holds the credentials of ${holder}`
        }; paw will not overwrite it: choose another file, or pass --force`,
      );
    }
  }
  return file;
}

async function deliverSecret(
  output: Output,
  issued: NewServiceAccountSecret,
  file: string | undefined,
  options: SecretOptions,
  retry: string,
): Promise<void> {
  if (file !== undefined) {
    try {
      await writeCredentialsFile(file, issued);
    } catch (error) {
      throw new UsageError(
        `${issued.clientId} got a new secret but it could not be written to ${file} ` +
          `(${error instanceof Error ? error.message : String(error)}); run \`${retry}\` with a writable --out`,
        { cause: error },
      );
    }
  }
  if (issued.refusedAccessTokenUri !== undefined) {
    output.warn(
      `the platform's answer named the token address ${issued.refusedAccessTokenUri}, not the ` +
        `endpoint of the platform paw called: ${file ?? 'the credentials'} keep${file === undefined ? '' : 's'} ${issued.accessTokenUri}`,
    );
  }
  const suspended = issued.suspendedTprPolicyIds ?? [];
  if (suspended.length > 0) {
    output.warn(
      `the rotation suspended quorum-authorization (TPR) policies ${suspended.join(', ')}: changes ` +
        'they guarded no longer wait for approval until someone reviews them in the platform',
    );
  }
  const json = {
    clientId: issued.clientId,
    name: issued.name ?? null,
    accessTokenUri: issued.accessTokenUri,
    credentialsFile: file ?? null,
    ...(issued.suspendedTprPolicyIds === undefined
      ? {}
      : { suspendedTprPolicyIds: issued.suspendedTprPolicyIds }),
    ...(options.printSecret ? { clientSecret: issued.clientSecret.reveal() } : {}),
  };
  output.result(json, () =>
    formatFields([
      ['client id', issued.clientId],
      ['name', issued.name],
      ['credentials file', file === undefined ? undefined : `${file} (mode 0600)`],
      ...(options.printSecret ? ([['client secret', issued.clientSecret.reveal()]] as const) : []),
    ]),
  );
}

/** `paw accounts list|create|rotate|delete|set-roles`: service accounts, through GraphQL. */
export function accountsCommand(): Command {
  const accounts = new Command('accounts')
    .description('manage service accounts (the identities automation uses)')
    .addHelpText(
      'after',
      examples('paw accounts list', 'paw accounts rotate client|<uuid> --out sa.json'),
    );

  withListLimit(
    withPlatformOptions(
      accounts
        .command('list')
        .description('list service accounts and their roles')
        .addHelpText('after', examples('paw accounts list --json')),
    ),
  ).action((options: PlatformCommandOptions & ListLimitOptions) =>
    withPlatformClient(options, async ({ client, output }) => {
      await printList(client.graphql.serviceAccounts.list(), accountColumns, options, output);
    }),
  );

  withPlatformOptions(
    withSecretOptions(
      accounts
        .command('create')
        .description('create a service account; its secret is stored with --out (shown only once)')
        .requiredOption('--name <name>', 'name of the account')
        .option('--description <text>', 'what it is for')
        .requiredOption(
          '--role <roleIds>',
          'role id to grant (repeatable or comma-separated)',
          collect,
        ),
    ).addHelpText(
      'after',
      examples('paw accounts create --name nightly-snapshots --role <roleId> --out nightly.json'),
    ),
  ).action(
    async (options: SecretOptions & { name: string; description?: string; role: string[] }) => {
      const file = await prepareSecretDestination(options, undefined);
      await withPlatformClient(options, async ({ client, output }) => {
        const issued = await client.graphql.serviceAccounts.create({
          name: options.name,
          description: options.description,
          roleIds: options.role,
        });
        await deliverSecret(
          output,
          issued,
          file,
          options,
          `paw accounts rotate ${issued.clientId}`,
        );
      });
    },
  );

  withPlatformOptions(
    withSecretOptions(
      accounts
        .command('rotate')
        .description('give a service account a new secret; the old one stops working at once')
        .argument('<account>', 'client|<uuid> or the bare uuid'),
    ).addHelpText(
      'after',
      '\nA paw process whose credentials file is rewritten with the new secret (--out that file)\n' +
        'picks it up by itself when the old secret is refused.\n' +
        examples('paw accounts rotate client|<uuid> --out sa.json'),
    ),
  ).action(async (account: string, options: SecretOptions) => {
    const file = await prepareSecretDestination(options, account);
    await withPlatformClient(options, async ({ client, output }) => {
      const issued = await client.graphql.serviceAccounts.rotateSecret(account);
      await deliverSecret(output, issued, file, options, `paw accounts rotate ${account}`);
    });
  });

  withPlatformOptions(
    accounts
      .command('delete')
      .description('delete service accounts')
      .argument('<accounts...>', 'client|<uuid> or bare uuids')
      .addHelpText('after', examples('paw accounts delete client|<uuid>')),
  ).action((ids: string[], options: PlatformCommandOptions) =>
    withPlatformClient(options, async ({ client, output }) => {
      await client.graphql.serviceAccounts.delete(ids);
      output.result({ deleted: ids }, () => `deleted ${ids.join(', ')}\n`);
    }),
  );

  withPlatformOptions(
    accounts
      .command('set-roles')
      .description("replace a service account's roles (overwrites the current ones)")
      .argument('<account>', 'client|<uuid> or the bare uuid')
      .requiredOption('--role <roleIds>', 'role id (repeatable or comma-separated)', collect)
      .addHelpText('after', examples('paw accounts set-roles client|<uuid> --role <roleId>')),
  ).action((account: string, options: PlatformCommandOptions & { role: string[] }) =>
    withPlatformClient(options, async ({ client, output }) => {
      await client.graphql.serviceAccounts.setRoles(account, options.role);
      output.result(
        { account, roleIds: options.role },
        () => `roles of ${account}: ${options.role.join(', ')}\n`,
      );
    }),
  );

  return accounts;
}
