import { readFileSync } from 'node:fs';
import { totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';

/**
 * The V8 heap paw's processes run with in the bench: the one they get in their pod, or the one
 * this machine gives them.
 *
 * Node sizes V8's heap from the memory a process may use: the smaller of the machine's RAM and
 * its cgroup's limit, which in a pod is the container's `limits.memory`. V8 makes its old
 * generation half of that (a quarter, doubled on 64-bit), at least 256 MB and at most 4 GB, and
 * lets the old generation grow before a full collection by a factor that rises with that
 * ceiling, up to 4 from 2 GB on. On the bench's 24 GB machines that is a 4 GB ceiling: measured
 * on a 30,000-snapshot night at 500/s (BENCHMARKS.md, "The 10× night"), `paw start` reached
 * 261 MB of RSS with 169 MB of old generation in use, of which 40 MB was live (a heap snapshot:
 * module sources and compiled code, nothing that grows with the night). In the shipped pod
 * (512 MiB) the ceiling is 256 MB and V8 collects long before. So the bench gives each paw
 * process the old generation its pod would (`--max-old-space-size`); the young generation keeps
 * this machine's size, which is larger than the pod's, so the figures err high.
 */
export type HeapChoice = 'pod' | 'host';

/** The manifest whose container limit the bench takes (the worker's: most of a night's work). */
const WORKER_MANIFEST = fileURLToPath(
  new URL('../../deploy/kubernetes/worker.yaml', import.meta.url),
);

const MIB = 1024 * 1024;

/** V8's old generation for a process that may use `memoryBytes`, MB (see above). */
export function v8OldGenerationMb(memoryBytes: number): number {
  return Math.min(4096, Math.max(256, Math.floor(memoryBytes / MIB / 2)));
}

/** The memory limit of the first container of the manifest's Deployment, bytes. */
export function podMemoryLimitBytes(manifest: string = WORKER_MANIFEST): number {
  for (const document of parseAllDocuments(readFileSync(manifest, 'utf8'))) {
    const value = document.toJS() as DeploymentShape | null;
    if (value?.kind !== 'Deployment') continue;
    const limit = value.spec?.template?.spec?.containers?.[0]?.resources?.limits?.memory;
    if (typeof limit !== 'string' && typeof limit !== 'number') break;
    return quantityBytes(String(limit));
  }
  throw new Error(`${manifest}: no Deployment with a container memory limit`);
}

/** The node arguments that give a paw process `choice`'s heap, and how to say it. */
export function heapArguments(choice: HeapChoice): { args: string[]; describe: string } {
  if (choice === 'host') {
    return {
      args: [],
      describe: `this machine's heap (old generation ${v8OldGenerationMb(totalmem())} MB)`,
    };
  }
  const limit = podMemoryLimitBytes();
  const oldGenerationMb = v8OldGenerationMb(limit);
  return {
    args: [`--max-old-space-size=${oldGenerationMb}`],
    describe: `the pod's heap (old generation ${oldGenerationMb} MB for its ${limit / MIB} MiB limit)`,
  };
}

interface DeploymentShape {
  kind?: string;
  spec?: {
    template?: {
      spec?: { containers?: { resources?: { limits?: { memory?: unknown } } }[] };
    };
  };
}

/** A Kubernetes memory quantity (`512Mi`, `1Gi`, `500M`, `1048576`) in bytes. */
function quantityBytes(quantity: string): number {
  const match = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(quantity.trim());
  if (match === null) throw new Error(`'${quantity}' is not a memory quantity`);
  const units: Record<string, number> = {
    '': 1,
    Ki: 1024,
    Mi: MIB,
    Gi: 1024 * MIB,
    Ti: 1024 * 1024 * MIB,
    k: 1e3,
    M: 1e6,
    G: 1e9,
    T: 1e12,
  };
  return Number(match[1]) * (units[match[2] ?? ''] ?? NaN);
}
