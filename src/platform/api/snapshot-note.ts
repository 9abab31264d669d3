/**
 * The note an on-demand snapshot carries (GraphQL's `userNote`): the platform's audit shows who
 * took a snapshot and why, so every snapshot paw takes names paw and what it was for (a run's
 * id, or the command).
 */
export function snapshotNote(purpose: string): string {
  return `taken by paw: ${purpose}`;
}
