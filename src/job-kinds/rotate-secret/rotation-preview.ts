import type { DefinitionOf } from '../../definitions/job-definition.js';
import { sinkFolderProblem } from '../../definitions/sink-folder.js';
import type { PlatformClient } from '../../platform/platform-client.js';

/** What a rotation would do now, checked against the platform, touching nothing. */
export interface RotationPreview {
  readonly kind: 'rotate-secret';
  readonly clientId: string;
  /** The account's name, or undefined when the platform lists no account with this client id. */
  readonly accountName: string | undefined;
  /** Where the new secret would be written. */
  readonly sink: string;
  /** Why the sink would be refused, if it would be. */
  readonly sinkProblem?: string;
}

/**
 * Looks the service account up (a rotation of an account the platform does not list would
 * fail) and checks the sink's folder as a run would. Never rotates, never writes.
 */
export async function previewRotation(
  definition: DefinitionOf<'rotate-secret'>,
  platform: PlatformClient,
  signal?: AbortSignal,
): Promise<RotationPreview> {
  const { clientId } = definition.serviceAccount;
  let accountName: string | undefined;
  for await (const account of platform.graphql.serviceAccounts.list(signal)) {
    if (account.clientId === clientId) {
      accountName = account.name;
      break;
    }
  }
  const sinkProblem = await sinkFolderProblem(definition.sink.file);
  return {
    kind: 'rotate-secret',
    clientId,
    accountName,
    sink: definition.sink.file,
    ...(sinkProblem === undefined ? {} : { sinkProblem: sinkProblem.message }),
  };
}
