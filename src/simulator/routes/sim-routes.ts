import { z } from 'zod';
import { faultsSchema } from '../fault-rules.js';
import { simulatorFixtures } from '../fixtures.js';
import { jobScheduleReport } from '../job-schedule-report.js';
import { jobStatusLinkSchema } from '../job-status-link.js';
import { CONNECTION_STATES } from '../records.js';
import { SIM_VOCABULARIES, SimVocabulary } from '../sim-vocabulary.js';
import type { ZodApp } from '../route-config.js';
import type { SimulatorState } from '../simulator-state.js';
import { statsReport } from '../stats-report.js';

/** Why an administrator paused an SLA Domain by hand, when the test does not say. */
const HAND_PAUSE_NOTE = 'Paused by hand: storage array firmware upgrade on this cluster';

/** Thrown by `/_sim` handlers; answered as `{ "error": message }`. */
export class SimRouteError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * `/_sim/*`: introspection and run-time controls for tests and demos. Not part of the platform:
 * never authenticated, rate limited or faulted (its routes carry no operationId).
 */
export function registerSimRoutes(app: ZodApp, state: SimulatorState): void {
  const hide = { hide: true } as const;

  app.get('/_sim/fixtures', { schema: hide }, async () => simulatorFixtures(state));

  app.get('/_sim/stats', { schema: hide }, async () => statsReport(state));
  app.delete('/_sim/stats', { schema: hide }, async (_request, reply) => {
    state.stats.reset();
    return reply.code(204).send();
  });

  app.get('/_sim/jobs', { schema: hide }, async () => jobScheduleReport(state));

  app.get('/_sim/faults', { schema: hide }, async () => state.faults.get());
  app.put('/_sim/faults', { schema: { ...hide, body: faultsSchema } }, async (request) => {
    state.faults.set(request.body);
    return state.faults.get();
  });

  app.get('/_sim/issued-secrets', { schema: hide }, async () => state.secrets.snapshot());

  app.get('/_sim/job-status-link', { schema: hide }, async () => state.jobStatusLink);
  app.put(
    '/_sim/job-status-link',
    { schema: { ...hide, body: jobStatusLinkSchema } },
    async (request) => {
      state.jobStatusLink = request.body;
      return state.jobStatusLink;
    },
  );

  // The platform's words and whether its events name their job, switchable while it runs.
  const platformBody = z.strictObject({
    vocabulary: z.enum(SIM_VOCABULARIES).optional(),
    eventsWithoutJobIds: z.boolean().optional(),
  });
  const platformView = () => ({
    vocabulary: state.words.name,
    eventsWithoutJobIds: state.eventsWithoutJobIds,
  });
  app.get('/_sim/platform', { schema: hide }, async () => platformView());
  app.put('/_sim/platform', { schema: { ...hide, body: platformBody } }, async (request) => {
    const { vocabulary, eventsWithoutJobIds } = request.body;
    if (vocabulary !== undefined) {
      state.words = new SimVocabulary(vocabulary, state.options.typeSpellings);
    }
    if (eventsWithoutJobIds !== undefined) state.eventsWithoutJobIds = eventsWithoutJobIds;
    return platformView();
  });

  // What account creation and rotation answer as accessTokenUri (null: the platform's own).
  app.put(
    '/_sim/access-token-uri',
    { schema: { ...hide, body: z.strictObject({ accessTokenUri: z.string().min(1).nullable() }) } },
    async (request) => {
      state.answeredAccessTokenUri = request.body.accessTokenUri;
      return { accessTokenUri: state.answeredAccessTokenUri };
    },
  );

  // What every secret rotation reports as the quorum-authorization policies it suspended.
  const suspendedPoliciesBody = z.strictObject({ policyIds: z.array(z.string().min(1)) });
  const suspendedPoliciesView = () => ({ policyIds: [...state.suspendedTprPolicyIds] });
  app.get('/_sim/suspended-tpr-policies', { schema: hide }, async () => suspendedPoliciesView());
  app.put(
    '/_sim/suspended-tpr-policies',
    { schema: { ...hide, body: suspendedPoliciesBody } },
    async (request) => {
      state.suspendedTprPolicyIds = [...request.body.policyIds];
      return suspendedPoliciesView();
    },
  );

  const rateLimitBody = z.strictObject({
    requestsPerSecond: z.number().min(0).max(1_000_000),
    burst: z.number().positive().optional(),
  });
  const rateLimitView = () => ({
    requestsPerSecond: state.rateLimiter.requestsPerSecond,
    burst: state.rateLimiter.burst,
  });
  app.get('/_sim/rate-limit', { schema: hide }, async () => rateLimitView());
  app.put('/_sim/rate-limit', { schema: { ...hide, body: rateLimitBody } }, async (request) => {
    state.rateLimiter.configure(request.body.requestsPerSecond, request.body.burst);
    return rateLimitView();
  });

  app.put(
    '/_sim/clusters/:clusterId/connection-state',
    {
      schema: {
        ...hide,
        params: z.object({ clusterId: z.string() }),
        body: z.strictObject({ connectionState: z.enum(CONNECTION_STATES) }),
      },
    },
    async (request) => {
      const cluster = state.inventory.cluster(request.params.clusterId);
      if (cluster === undefined)
        throw new SimRouteError(404, `cluster ${request.params.clusterId} not found`);
      cluster.connectionState = request.body.connectionState;
      return { id: cluster.id, name: cluster.name, connectionState: cluster.connectionState };
    },
  );

  // Someone else (an administrator, by hand) pauses an SLA Domain: paw must leave it paused.
  app.post(
    '/_sim/sla-domains/:slaDomainId/pause',
    {
      schema: {
        ...hide,
        params: z.object({ slaDomainId: z.string() }),
        body: z
          .strictObject({
            clusterIds: z.array(z.string().min(1)).min(1).optional(),
            pausedBy: z.string().trim().min(1).optional(),
            note: z.string().optional(),
          })
          .nullish(),
      },
    },
    async (request) => {
      const { slaDomainId } = request.params;
      if (state.slaDomains.get(slaDomainId) === undefined)
        throw new SimRouteError(404, `SLA Domain ${slaDomainId} not found`);
      const body = request.body ?? {};
      const domain = state.slaDomains.pause(slaDomainId, body.clusterIds, {
        pausedBy: body.pausedBy ?? state.identities.operator.email,
        note: body.note ?? HAND_PAUSE_NOTE,
      });
      return {
        id: domain.id,
        pauses: [...domain.pauses].map(([clusterId, pause]) => ({
          clusterId,
          pausedBy: pause.pausedBy,
          note: pause.note,
          since: pause.since,
        })),
      };
    },
  );

  app.put(
    '/_sim/workloads/:workloadId/sla-domain',
    {
      schema: {
        ...hide,
        params: z.object({ workloadId: z.string() }),
        body: z.strictObject({ slaDomainId: z.string().nullable() }),
      },
    },
    async (request) => {
      const workload = state.inventory.workload(request.params.workloadId);
      if (workload === undefined)
        throw new SimRouteError(404, `workload ${request.params.workloadId} not found`);
      const { slaDomainId } = request.body;
      const domain = slaDomainId === null ? null : state.slaDomains.get(slaDomainId);
      if (domain === undefined)
        throw new SimRouteError(404, `SLA Domain ${String(slaDomainId)} not found`);
      // A back door: no type check, like an administrator fixing things by hand.
      state.slaDomains.setProtection(workload, domain);
      return { id: workload.id, slaDomainId: workload.slaDomainId };
    },
  );
}
