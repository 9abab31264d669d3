import type { JobDefinition } from '../definitions/job-definition.js';
import type { PlatformClient } from '../platform/platform-client.js';
import { previewRotation, type RotationPreview } from './rotate-secret/rotation-preview.js';
import { previewWindow, type WindowPreview } from './sla-window/window-preview.js';
import { previewSnapshot, type SnapshotPreview } from './snapshot/snapshot-preview.js';

export type RunPreview = SnapshotPreview | WindowPreview | RotationPreview;

/** What a run of `definition` would do now (`paw run <id> --dry-run`): reads only. */
export function previewRun(
  definition: JobDefinition,
  platform: PlatformClient,
  signal?: AbortSignal,
): Promise<RunPreview> {
  switch (definition.kind) {
    case 'snapshot':
      return previewSnapshot(definition, platform, signal);
    case 'sla-window':
      return previewWindow(definition, platform, signal);
    case 'rotate-secret':
      return previewRotation(definition, platform, signal);
  }
}
