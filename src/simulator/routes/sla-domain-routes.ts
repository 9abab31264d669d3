import { paginate } from '../pagination.js';
import { requirePermission } from '../permission-check.js';
import { WORKLOAD_TYPES, type SimSlaDomain, type WorkloadType } from '../records.js';
import { RestError, successEnvelope } from '../rest-error.js';
import {
  clusterIdsBody,
  collectionEnvelopeOf,
  createSlaDomainBody,
  deletedSchema,
  envelopeOf,
  errorEnvelopeSchema,
  errorResponses,
  listSlaDomainsQuery,
  slaDomainIdParams,
  slaDomainSchema,
  updateSlaDomainBody,
  workloadIdsBody,
} from '../rest-schemas.js';
import { slaDomainView } from '../rest-views.js';
import { operation, type ZodApp } from '../route-config.js';
import type { SimulatorState } from '../simulator-state.js';

const rest = { bearerAuth: true, rateLimited: true };
const tags = ['SLA Domains'];
const withConflict = { ...errorResponses, 409: errorEnvelopeSchema };

/** SLA Domains: list, create, get, update, delete, assign, remove protection, pause, resume. */
export function registerSlaDomainRoutes(app: ZodApp, state: SimulatorState): void {
  const slaDomainEnvelope = envelopeOf(slaDomainSchema);

  app.route({
    method: 'GET',
    url: '/sla-domains',
    config: operation('listSlaDomains', 'rest', rest),
    schema: {
      operationId: 'listSlaDomains',
      tags,
      summary: 'List SLA Domains',
      description:
        'filterField NAME (substring), NAME_EXACT_MATCH, CLUSTER_UUID, OBJECT_TYPE or ' +
        'SHOW_PAUSED_SLAS_ONLY (filterText true/false: paused on at least one cluster).',
      querystring: listSlaDomainsQuery,
      response: { 200: collectionEnvelopeOf(slaDomainSchema), ...errorResponses },
    },
    handler: async (request) => {
      requirePermission(state, request, 'VIEW_INVENTORY');
      const { filterField, filterText, first, after } = request.query;
      const filter = slaFilter(state, filterField, filterText);
      const domains = state.slaDomains.list();
      const page = paginate({
        list: 'sla-domains',
        length: domains.length,
        at: (index) => domains[index] as SimSlaDomain,
        keyOf: (domain) => [domain.name, domain.id],
        filter,
        first,
        after,
      });
      return successEnvelope({
        ...page,
        nodes: page.nodes.map((domain) => slaDomainView(state, domain)),
      });
    },
  });

  app.route({
    method: 'POST',
    url: '/sla-domains',
    config: operation('createSlaDomain', 'rest', rest),
    schema: {
      operationId: 'createSlaDomain',
      tags,
      summary: 'Create an SLA Domain',
      body: createSlaDomainBody,
      response: { 201: slaDomainEnvelope, ...withConflict },
    },
    handler: async (request, reply) => {
      requirePermission(state, request, 'MANAGE_SLA');
      const domain = state.slaDomains.create(request.body);
      void reply.code(201);
      return successEnvelope(slaDomainView(state, domain));
    },
  });

  app.route({
    method: 'GET',
    url: '/sla-domains/:slaDomainId',
    config: operation('getSlaDomain', 'rest', rest),
    schema: {
      operationId: 'getSlaDomain',
      tags,
      summary: 'Get an SLA Domain, with its pause state per cluster',
      params: slaDomainIdParams,
      response: { 200: slaDomainEnvelope, ...errorResponses },
    },
    handler: async (request) => {
      requirePermission(state, request, 'VIEW_INVENTORY');
      return successEnvelope(
        slaDomainView(state, state.slaDomains.require(request.params.slaDomainId)),
      );
    },
  });

  app.route({
    method: 'PATCH',
    url: '/sla-domains/:slaDomainId',
    config: operation('updateSlaDomain', 'rest', rest),
    schema: {
      operationId: 'updateSlaDomain',
      tags,
      summary: 'Change an SLA Domain (any field of create but clusterIds)',
      params: slaDomainIdParams,
      body: updateSlaDomainBody,
      response: { 200: slaDomainEnvelope, ...withConflict },
    },
    handler: async (request) => {
      requirePermission(state, request, 'MANAGE_SLA');
      const { name, description, objectTypes, frequency, retention } = request.body;
      const domain = state.slaDomains.update(request.params.slaDomainId, {
        ...(name === undefined ? {} : { name }),
        ...(description === undefined ? {} : { description }),
        ...(objectTypes === undefined ? {} : { objectTypes }),
        ...(frequency === undefined ? {} : { frequency }),
        ...(retention === undefined ? {} : { retention }),
      });
      return successEnvelope(slaDomainView(state, domain));
    },
  });

  app.route({
    method: 'DELETE',
    url: '/sla-domains/:slaDomainId',
    config: operation('deleteSlaDomain', 'rest', rest),
    schema: {
      operationId: 'deleteSlaDomain',
      tags,
      summary: 'Delete an SLA Domain that protects no workload',
      params: slaDomainIdParams,
      response: { 200: envelopeOf(deletedSchema), ...withConflict },
    },
    handler: async (request) => {
      requirePermission(state, request, 'MANAGE_SLA');
      state.slaDomains.delete(request.params.slaDomainId);
      return successEnvelope({ id: request.params.slaDomainId, deleted: true as const });
    },
  });

  const membership = (
    operationId: 'assignSlaDomain' | 'removeProtection',
    path: 'assign' | 'unassign',
    summary: string,
  ): void => {
    app.route({
      method: 'POST',
      url: `/sla-domains/:slaDomainId/${path}`,
      config: operation(operationId, 'rest', rest),
      schema: {
        operationId,
        tags,
        summary,
        params: slaDomainIdParams,
        body: workloadIdsBody,
        response: { 200: slaDomainEnvelope, ...errorResponses },
      },
      handler: async (request) => {
        requirePermission(state, request, 'MANAGE_SLA');
        const { slaDomainId } = request.params;
        const { workloadIds } = request.body;
        const domain =
          path === 'assign'
            ? state.slaDomains.assign(slaDomainId, workloadIds)
            : state.slaDomains.unassign(slaDomainId, workloadIds);
        return successEnvelope(slaDomainView(state, domain));
      },
    });
  };
  membership('assignSlaDomain', 'assign', 'Protect workloads with an SLA Domain');
  membership('removeProtection', 'unassign', "Remove an SLA Domain's protection from workloads");

  const pausing = (
    operationId: 'pauseSlaDomain' | 'resumeSlaDomain',
    paused: boolean,
    summary: string,
  ): void => {
    app.route({
      method: 'POST',
      url: `/sla-domains/:slaDomainId/${paused ? 'pause' : 'resume'}`,
      config: operation(operationId, 'rest', rest),
      schema: {
        operationId,
        tags,
        summary,
        description: 'Per cluster; all of its clusters when clusterIds is omitted. Idempotent.',
        params: slaDomainIdParams,
        body: clusterIdsBody,
        response: { 200: slaDomainEnvelope, ...errorResponses },
      },
      handler: async (request) => {
        requirePermission(state, request, 'MANAGE_SLA');
        const domain = state.slaDomains.setPaused(
          request.params.slaDomainId,
          paused,
          request.body?.clusterIds,
        );
        return successEnvelope(slaDomainView(state, domain));
      },
    });
  };
  pausing('pauseSlaDomain', true, 'Pause an SLA Domain on clusters');
  pausing('resumeSlaDomain', false, 'Resume an SLA Domain on clusters');
}

function slaFilter(
  state: SimulatorState,
  field: string | undefined,
  text: string | undefined,
): ((domain: SimSlaDomain) => boolean) | undefined {
  if (field === undefined && text === undefined) return undefined;
  if (field === undefined) throw RestError.invalid('filterText needs a filterField');
  if (text === undefined) throw RestError.invalid(`filterField ${field} needs a filterText`);
  switch (field) {
    case 'NAME': {
      const needle = text.toLowerCase();
      return (domain) => domain.name.toLowerCase().includes(needle);
    }
    case 'NAME_EXACT_MATCH':
      return (domain) => domain.name === text;
    case 'CLUSTER_UUID':
      return (domain) => domain.clusterIds.includes(text);
    case 'OBJECT_TYPE': {
      if (!(WORKLOAD_TYPES as readonly string[]).includes(text)) {
        throw RestError.invalid(
          `filterText: ${text} is not a workload type; use one of ${WORKLOAD_TYPES.join(', ')}`,
        );
      }
      return (domain) => domain.objectTypes.includes(text as WorkloadType);
    }
    case 'SHOW_PAUSED_SLAS_ONLY': {
      if (text !== 'true' && text !== 'false')
        throw RestError.invalid('filterText: SHOW_PAUSED_SLAS_ONLY takes true or false');
      if (text === 'false') return undefined;
      return (domain) =>
        domain.clusterIds.some(
          (clusterId) => state.slaDomains.pauseStatus(domain, clusterId) === 'PAUSED',
        );
    }
    default:
      throw RestError.invalid(`filterField: unknown field ${field}`);
  }
}
