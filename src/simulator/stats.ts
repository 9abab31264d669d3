import type { FaultKind } from './fault-injector.js';

/** Counters behind `GET /_sim/stats`. Updated on every request, so kept in Maps. */
export class SimulatorStats {
  requests = 0;
  private readonly byOperation = new Map<string, number>();
  private readonly byStatus = new Map<number, number>();
  private readonly byOperationAndStatus = new Map<string, Map<number, number>>();
  private readonly faults = new Map<FaultKind, number>();
  private readonly triggers = new Map<string, number>();
  /** 429s from the token bucket (forced 429 faults are counted under faults). */
  rateLimited = 0;
  /**
   * Requests received and still waiting out their injected latency: not acted on yet, whether
   * or not their client is still there (a test waits for none to be left before it counts what
   * the platform did).
   */
  delayed = 0;

  request(operation: string): void {
    this.requests++;
    this.byOperation.set(operation, (this.byOperation.get(operation) ?? 0) + 1);
  }

  response(operation: string, status: number): void {
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
    let statuses = this.byOperationAndStatus.get(operation);
    if (statuses === undefined) {
      statuses = new Map<number, number>();
      this.byOperationAndStatus.set(operation, statuses);
    }
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  }

  fault(kind: FaultKind): void {
    this.faults.set(kind, (this.faults.get(kind) ?? 0) + 1);
  }

  snapshotTrigger(workloadId: string): void {
    this.triggers.set(workloadId, (this.triggers.get(workloadId) ?? 0) + 1);
  }

  reset(): void {
    this.requests = 0;
    this.rateLimited = 0;
    this.byOperation.clear();
    this.byStatus.clear();
    this.byOperationAndStatus.clear();
    this.faults.clear();
    this.triggers.clear();
  }

  counters(): {
    requests: number;
    requestsDelayed: number;
    byOperation: Record<string, number>;
    byStatus: Record<string, number>;
    byOperationAndStatus: Record<string, Record<string, number>>;
    rateLimited: number;
    faultsInjected: Record<string, number>;
    snapshotTriggers: Record<string, number>;
  } {
    return {
      requests: this.requests,
      requestsDelayed: this.delayed,
      byOperation: Object.fromEntries(this.byOperation),
      byStatus: Object.fromEntries(this.byStatus),
      byOperationAndStatus: Object.fromEntries(
        [...this.byOperationAndStatus].map(([operation, statuses]) => [
          operation,
          Object.fromEntries(statuses),
        ]),
      ),
      rateLimited: this.rateLimited,
      faultsInjected: Object.fromEntries(this.faults),
      snapshotTriggers: Object.fromEntries(this.triggers),
    };
  }
}
