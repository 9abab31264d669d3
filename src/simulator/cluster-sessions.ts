import { randomUUID } from 'node:crypto';
import type { Principal } from './accounts.js';
import type { SimulatorClock } from './clock.js';
import type { ExpiringTokens } from './expiring-tokens.js';

export interface ClusterSession {
  readonly id: string;
  readonly clusterId: string;
  /** The credential's client id (`client|…` or `pat|…`): caps count per account. */
  readonly clientId: string;
  readonly principal: Principal;
  readonly token: string;
  readonly expiresAt: number;
  deleted: boolean;
}

export type SessionCheck =
  | { readonly status: 'valid'; readonly session: ClusterSession }
  | { readonly status: 'expired' | 'invalid' };

/**
 * Sessions on every simulated cluster. An account may hold `cap` live sessions per cluster, like
 * the real clusters (users hit a limit of 10); expired and deleted ones do not count.
 */
export class ClusterSessionStore {
  private readonly byToken = new Map<string, ClusterSession>();
  private readonly byId = new Map<string, ClusterSession>();
  private readonly liveByAccount = new Map<string, Set<ClusterSession>>();

  constructor(
    private readonly clock: SimulatorClock,
    private readonly minted: ExpiringTokens,
    private readonly cap: number,
  ) {}

  get sessionCap(): number {
    return this.cap;
  }

  /** A new session, or undefined when the account already holds `cap` live sessions there. */
  create(clusterId: string, clientId: string, principal: Principal): ClusterSession | undefined {
    const now = this.clock.now();
    const key = `${clusterId}|${clientId}`;
    let live = this.liveByAccount.get(key);
    if (live === undefined) this.liveByAccount.set(key, (live = new Set()));
    for (const session of live)
      if (session.deleted || now >= session.expiresAt) live.delete(session);
    if (live.size >= this.cap) return undefined;
    const { token, expiresAt } = this.minted.mint(
      clientId,
      'cluster-session',
      'sessionTokens',
      now,
    );
    const session: ClusterSession = {
      id: randomUUID(),
      clusterId,
      clientId,
      principal,
      token,
      expiresAt,
      deleted: false,
    };
    this.byToken.set(token, session);
    this.byId.set(session.id, session);
    live.add(session);
    return session;
  }

  check(clusterId: string, token: string): SessionCheck {
    const session = this.byToken.get(token);
    if (session === undefined || session.deleted || session.clusterId !== clusterId)
      return { status: 'invalid' };
    if (this.clock.now() >= session.expiresAt) return { status: 'expired' };
    return { status: 'valid', session };
  }

  find(id: string): ClusterSession | undefined {
    return this.byId.get(id);
  }

  delete(session: ClusterSession): void {
    session.deleted = true;
    this.liveByAccount.get(`${session.clusterId}|${session.clientId}`)?.delete(session);
  }

  /** Ends every session of an account (it was deleted). */
  deleteAllOf(clientId: string): void {
    for (const session of this.byId.values())
      if (session.clientId === clientId) this.delete(session);
  }

  /** Sessions neither expired nor deleted. */
  live(): number {
    const now = this.clock.now();
    let live = 0;
    for (const session of this.byId.values())
      if (!session.deleted && now < session.expiresAt) live++;
    return live;
  }
}
