import { text } from 'node:stream/consumers';
import { Command } from 'commander';
import { Secret } from '../../config/secret.js';
import { UsageError } from '../../shared/usage-error.js';
import type { ClusterCredentialKind } from '../../platform/cluster/cluster-sessions.js';
import { examples } from '../option-parsers.js';
import { formatFields } from '../output/table.js';
import {
  withPlatformClient,
  withPlatformOptions,
  type PlatformCommandOptions,
} from '../with-platform-client.js';

interface SessionOptions extends PlatformCommandOptions {
  readonly cluster: string;
  readonly pat?: boolean;
}

function kindOf(options: SessionOptions): ClusterCredentialKind {
  return options.pat ? 'personal-access-token' : 'service-account';
}

function clusterUrl(text: string): URL {
  try {
    return new URL(text);
  } catch {
    throw new UsageError(
      `--cluster ${text}: not a URL; give the cluster node's address, e.g. https://10.0.0.5`,
    );
  }
}

function withSessionOptions(command: Command): Command {
  return command
    .requiredOption('--cluster <url>', "the cluster node's base URL ({cluster_base_url})")
    .option(
      '--pat',
      'use the personal access token (PAW_PAT_CLIENT_ID, PAW_PAT_SECRET) instead of the service account; needs cluster 9.6.0+',
    );
}

/** `paw cluster-session create|delete`: sessions on an on-premises cluster's own API. */
export function clusterSessionCommand(): Command {
  const sessions = new Command('cluster-session')
    .description("open and delete sessions on a cluster's own API")
    .addHelpText('after', examples('paw cluster-session create --cluster https://10.0.0.5'));

  withPlatformOptions(
    withSessionOptions(
      sessions
        .command('create')
        .description(
          'open a session on a cluster; it stays open until it expires or you delete it (clusters cap live sessions per account)',
        )
        .option('--show-token', 'print the session token (a secret) on standard output'),
    ).addHelpText(
      'after',
      examples(
        'paw cluster-session create --cluster https://10.0.0.5 --credentials sa.json',
        'paw cluster-session create --cluster https://10.0.0.5 --pat --show-token --json',
      ),
    ),
  ).action((options: SessionOptions & { showToken?: boolean }) =>
    withPlatformClient(options, async ({ client, output }) => {
      const session = await client.clusters.open(clusterUrl(options.cluster), kindOf(options));
      const json = {
        cluster: session.clusterOrigin,
        kind: session.kind,
        clientId: session.clientId,
        sessionId: session.sessionId ?? null,
        expirationTime: session.expirationTime,
        organizationId: session.organizationId ?? null,
        ...(options.showToken ? { token: session.token.reveal() } : {}),
      };
      output.result(json, () =>
        formatFields([
          ['cluster', session.clusterOrigin],
          ['session id', session.sessionId ?? '(none: personal access token sessions have no id)'],
          ['client id', session.clientId],
          ['expires', session.expirationTime],
          ...(options.showToken ? ([['token', session.token.reveal()]] as const) : []),
        ]),
      );
      output.note(
        session.sessionId === undefined
          ? 'delete it with: paw cluster-session delete --cluster ... --token-stdin --pat'
          : `delete it with: paw cluster-session delete ${session.sessionId} --cluster ${session.clusterOrigin}`,
      );
    }),
  );

  withPlatformOptions(
    withSessionOptions(
      sessions
        .command('delete')
        .description('delete a cluster session, by id or by its token (read from standard input)')
        .argument('[sessionId]', 'the session id `create` printed')
        .option('--token-stdin', 'delete the session whose token is given on standard input'),
    ).addHelpText(
      'after',
      examples(
        'paw cluster-session delete <sessionId> --cluster https://10.0.0.5',
        'printf %s "$TOKEN" | paw cluster-session delete --cluster https://10.0.0.5 --token-stdin',
      ),
    ),
  ).action(
    async (sessionId: string | undefined, options: SessionOptions & { tokenStdin?: boolean }) => {
      if ((sessionId === undefined) === (options.tokenStdin !== true)) {
        throw new UsageError('give either a session id or --token-stdin');
      }
      const cluster = clusterUrl(options.cluster);
      const token = options.tokenStdin ? (await text(process.stdin)).trim() : undefined;
      if (token === '') throw new UsageError('--token-stdin: standard input was empty');
      await withPlatformClient(options, async ({ client, output }) => {
        if (token !== undefined) {
          await client.clusters.deleteSessionOfToken(cluster, new Secret(token));
        } else {
          await client.clusters.deleteSession(cluster, kindOf(options), sessionId ?? '');
        }
        output.result(
          { deleted: sessionId ?? 'session of the given token' },
          () =>
            `deleted ${sessionId === undefined ? 'the session of the given token' : `session ${sessionId}`}\n`,
        );
      });
    },
  );

  return sessions;
}
