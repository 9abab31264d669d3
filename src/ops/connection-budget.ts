import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** What the budget allows. */
export interface ConnectionLimits {
  /** Connections held at once, from everyone (`http.maxConnections`). */
  readonly total: number;
  /** Connections held at once from one remote address (`http.maxConnectionsPerAddress`). */
  readonly perAddress: number;
  /** How long a connection may stay open before its first request arrives. */
  readonly firstRequestMs: number;
  /** Connections held on probation at once, beyond the others (see ConnectionBudget). */
  readonly probation: number;
  /** How long a connection on probation may stay open before its request arrives. */
  readonly probationFirstRequestMs: number;
}

/** Why a connection was closed by the budget (for the log). */
export type BudgetRefusal = 'address full' | 'server full' | 'made room' | 'no first request';

/** One connection the budget holds. */
interface Held {
  readonly socket: Socket;
  readonly address: string;
  /** Requests of this connection not yet answered: a connection answering one is never evicted. */
  inFlight: number;
  /** Closes it if no request has come by then; cleared by its first request. */
  firstRequestTimer: NodeJS.Timeout | undefined;
  /** Admitted beyond its address's or the server's share: one request, soon, then closed. */
  readonly probation: boolean;
}

/**
 * The ops server's connections, budgeted so that no client can starve the others, the kubelet's
 * probes above all. Node's own cap (`server.maxConnections`) closes every connection beyond it,
 * so one client that holds the cap's worth of idle sockets (re-opened as they close) leaves no
 * room for `/healthz`, and Kubernetes then restarts a healthy pod. Instead:
 * - one remote address holds at most `perAddress` connections; beyond, its new ones are closed
 *   at once (its own traffic waits for its own connections; nobody else's does);
 * - when the server holds `total`, a connection from an address holding fewer than the heaviest
 *   one takes the place of that address's oldest idle connection (no request in flight), so a
 *   newcomer (a probe from the node's address, a Prometheus scrape) always gets in while anyone
 *   holds more than it;
 * - a connection that sends no request within `firstRequestMs` is closed: a silent socket costs
 *   little, but it holds a place;
 * - a connection that finds no place is not closed at once but held on probation, up to
 *   `probation` of them from everyone: it must send its request within
 *   `probationFirstRequestMs` (a second), is answered, and closed. A connection is told apart
 *   only by its address until it speaks, so this is what lets a probe in from the very address
 *   of a client holding every socket it can (a sidecar, a port-forward, a test on loopback);
 *   the client's surplus sockets are closed within a second instead of re-opened in a busy loop.
 * A client holding more than `perAddress` and `probation` connections together from the very
 * address the probes come from still crowds them out: in a cluster probes come from the node.
 */
export class ConnectionBudget {
  private readonly byAddress = new Map<string, Set<Held>>();
  private readonly bySocket = new WeakMap<Socket, Held>();
  private readonly onProbation = new Set<Held>();
  private held = 0;

  constructor(
    private readonly limits: ConnectionLimits,
    private readonly onClosed: (why: BudgetRefusal, address: string) => void,
  ) {}

  /** Watches `server`'s connections and requests (call before it listens). */
  attach(server: Server): void {
    server.on('connection', (socket: Socket) => this.admit(socket));
    server.on('request', (request, response) => {
      const held = this.bySocket.get(request.socket);
      if (held === undefined) return;
      clearTimeout(held.firstRequestTimer);
      held.firstRequestTimer = undefined;
      held.inFlight += 1;
      // Its one request is answered, and the connection closed with the answer.
      if (held.probation) response.shouldKeepAlive = false;
      response.once('close', () => (held.inFlight -= 1));
    });
  }

  private admit(socket: Socket): void {
    const address = plainAddress(socket.remoteAddress);
    const refused = this.makeRoom(address);
    if (refused !== undefined && this.onProbation.size >= this.limits.probation) {
      this.close(socket, refused, address);
      return;
    }
    const probation = refused !== undefined;
    const held: Held = { socket, address, inFlight: 0, firstRequestTimer: undefined, probation };
    held.firstRequestTimer = setTimeout(
      () => {
        if (!this.bySocket.has(socket)) return;
        this.forget(held);
        this.close(socket, 'no first request', address);
      },
      probation ? this.limits.probationFirstRequestMs : this.limits.firstRequestMs,
    );
    held.firstRequestTimer.unref();
    this.bySocket.set(socket, held);
    if (probation) {
      this.onProbation.add(held);
    } else {
      const set = this.byAddress.get(address) ?? new Set<Held>();
      set.add(held);
      this.byAddress.set(address, set);
      this.held += 1;
    }
    socket.once('close', () => this.forget(held));
  }

  /**
   * Whether a new connection from `address` has a place, evicting another if that is fair;
   * why not, if it has none.
   */
  private makeRoom(address: string): BudgetRefusal | undefined {
    const ownCount = this.byAddress.get(address)?.size ?? 0;
    if (ownCount >= this.limits.perAddress) return 'address full';
    if (this.held < this.limits.total) return undefined;
    const victim = this.victimFor(ownCount);
    if (victim === undefined) return 'server full';
    this.forget(victim);
    this.close(victim.socket, 'made room', victim.address);
    return undefined;
  }

  /**
   * The oldest idle connection of the address holding the most, if that address holds more
   * than the newcomer's would once admitted (else evicting would only trade places).
   */
  private victimFor(newcomerCount: number): Held | undefined {
    const heaviestFirst = [...this.byAddress.values()]
      .filter((set) => set.size > newcomerCount + 1)
      .sort((a, b) => b.size - a.size);
    for (const set of heaviestFirst) {
      for (const held of set) if (held.inFlight === 0) return held;
    }
    return undefined;
  }

  private forget(held: Held): void {
    if (this.bySocket.get(held.socket) !== held) return;
    this.bySocket.delete(held.socket);
    clearTimeout(held.firstRequestTimer);
    if (held.probation) {
      this.onProbation.delete(held);
      return;
    }
    const set = this.byAddress.get(held.address);
    set?.delete(held);
    if (set?.size === 0) this.byAddress.delete(held.address);
    this.held -= 1;
  }

  private close(socket: Socket, why: BudgetRefusal, address: string): void {
    socket.destroy();
    this.onClosed(why, address);
  }
}

/** An IPv4 peer on a dual-stack socket shows as ::ffff:a.b.c.d: one address either way. */
function plainAddress(address: string | undefined): string {
  if (address === undefined) return 'unknown';
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}
