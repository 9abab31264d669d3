import type { Settings } from '../../config/settings-schema.js';
import type { JobDefinition, JobKind } from '../../definitions/job-definition.js';
import type { PlatformClient } from '../../platform/platform-client.js';
import type { CheckResult } from './doctor-check.js';

/** What the user asked `paw doctor` for. */
interface DoctorOptions {
  /** Take one real snapshot and pause/resume an SLA Domain (`--allow-writes`). */
  readonly allowWrites: boolean;
  readonly workloadId?: string | undefined;
  readonly slaDomainId?: string | undefined;
  readonly clusterId?: string | undefined;
  /** Cluster addresses to check for personal-access-token support (`--cluster-url`). */
  readonly clusterUrls: readonly string[];
  /** How long the write check waits for its snapshot. */
  readonly snapshotTimeoutMs: number;
  /**
   * The account's GraphQL schema saved by the user (`--schema`: SDL or introspection JSON),
   * for a platform that does not answer introspection.
   */
  readonly schemaFile?: string | undefined;
}

/** What every check of `paw doctor` may use. */
export interface DoctorContext {
  readonly client: PlatformClient;
  readonly settings: Settings;
  /** The job definitions, or undefined when the folder has none (then every kind is checked). */
  readonly definitions: readonly JobDefinition[] | undefined;
  /** The job kinds whose needs are checked. */
  readonly kinds: readonly JobKind[];
  readonly options: DoctorOptions;
  /** Reports a finished check as it happens (progress on standard error). */
  readonly report: (result: CheckResult) => void;
  readonly signal?: AbortSignal | undefined;
}
