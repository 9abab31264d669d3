import { inArrayOrder } from '../pagination.js';
import { collectionEnvelope } from '../rest-collection.js';
import { requirePermission } from '../permission-check.js';
import type { SimSlaDomain, WorkloadType } from '../records.js';
import { RestError, successEnvelope } from '../rest-error.js';
import { layoutRoute } from '../rest-layouts.js';
import {
  clusterIdsBody,
  collectionEnvelopeOf,
  createSlaDomainBody,
  deletedSchema,
  envelopeOf,
  errorEnvelopeSchema,
  errorResponses,
  listSlaDomainsQuery,
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

/**
 * SLA Domains: list, create, get, update, delete, assign, remove protection, pause, resume,
 * where the layout puts them.
 */
export function registerSlaDomainRoutes(app: ZodApp, state: SimulatorState): void {
  const slaDomainEnvelope = envelopeOf(slaDomainSchema);
  const route = (operation: Parameters<typeof layoutRoute>[1]) =>
    layoutRoute(state.options.restLayout, operation);
  const objectTypesOf = (words: readonly string[]): WorkloadType[] => [
    ...new Set(
      words.flatMap((word) => {
        const types = state.words.parseWorkloadTypes(word);
        if (types.length === 0)
          throw RestError.invalid(`objectTypes: ${word} is not a workload type`);
        return types;
      }),
    ),
  ];

  const list = route('listSlaDomains');
  app.route({
    method: list.method,
    url: list.url,
    config: operation('listSlaDomains', 'rest', rest),
    schema: {
      operationId: list.operationId,
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
      return collectionEnvelope(
        {
          list: 'sla-domains',
          items: inArrayOrder(state.slaDomains.list()),
          keyOf: (domain) => [domain.name, domain.id],
          filter,
        },
        { first, after },
        (domain) => slaDomainView(state, domain),
      );
    },
  });

  const create = route('createSlaDomain');
  app.route({
    method: create.method,
    url: create.url,
    config: operation('createSlaDomain', 'rest', rest),
    schema: {
      operationId: create.operationId,
      tags,
      summary: 'Create an SLA Domain',
      body: createSlaDomainBody,
      response: { 201: slaDomainEnvelope, ...withConflict },
    },
    handler: async (request, reply) => {
      requirePermission(state, request, 'MANAGE_SLA');
      const domain = state.slaDomains.create({
        ...request.body,
        objectTypes: objectTypesOf(request.body.objectTypes),
      });
      void reply.code(201);
      return successEnvelope(slaDomainView(state, domain));
    },
  });

  const get = route('getSlaDomain');
  app.route({
    method: get.method,
    url: get.url,
    config: operation('getSlaDomain', 'rest', rest),
    schema: {
      operationId: get.operationId,
      tags,
      summary: 'Get an SLA Domain, with its pause state per cluster',
      params: get.params,
      response: { 200: slaDomainEnvelope, ...errorResponses },
    },
    handler: async (request) => {
      requirePermission(state, request, 'VIEW_INVENTORY');
      return successEnvelope(
        slaDomainView(state, state.slaDomains.require(get.param(request.params, 'slaDomainId'))),
      );
    },
  });

  const update = route('updateSlaDomain');
  app.route({
    method: update.method,
    url: update.url,
    config: operation('updateSlaDomain', 'rest', rest),
    schema: {
      operationId: update.operationId,
      tags,
      summary: 'Change an SLA Domain (any field of create but clusterIds)',
      params: update.params,
      body: updateSlaDomainBody,
      response: { 200: slaDomainEnvelope, ...withConflict },
    },
    handler: async (request) => {
      requirePermission(state, request, 'MANAGE_SLA');
      const { name, description, objectTypes, frequency, retention } = request.body;
      const domain = state.slaDomains.update(update.param(request.params, 'slaDomainId'), {
        ...(name === undefined ? {} : { name }),
        ...(description === undefined ? {} : { description }),
        ...(objectTypes === undefined ? {} : { objectTypes: objectTypesOf(objectTypes) }),
        ...(frequency === undefined ? {} : { frequency }),
        ...(retention === undefined ? {} : { retention }),
      });
      return successEnvelope(slaDomainView(state, domain));
    },
  });

  const remove = route('deleteSlaDomain');
  app.route({
    method: remove.method,
    url: remove.url,
    config: operation('deleteSlaDomain', 'rest', rest),
    schema: {
      operationId: remove.operationId,
      tags,
      summary: 'Delete an SLA Domain that protects no workload',
      params: remove.params,
      response: { 200: envelopeOf(deletedSchema), ...withConflict },
    },
    handler: async (request) => {
      requirePermission(state, request, 'MANAGE_SLA');
      const slaDomainId = remove.param(request.params, 'slaDomainId');
      state.slaDomains.delete(slaDomainId);
      return successEnvelope({ id: slaDomainId, deleted: true as const });
    },
  });

  const membership = (
    operationId: 'assignSlaDomain' | 'removeProtection',
    summary: string,
  ): void => {
    const member = route(operationId);
    app.route({
      method: member.method,
      url: member.url,
      config: operation(operationId, 'rest', rest),
      schema: {
        operationId: member.operationId,
        tags,
        summary,
        params: member.params,
        body: workloadIdsBody,
        response: { 200: slaDomainEnvelope, ...errorResponses },
      },
      handler: async (request) => {
        requirePermission(state, request, 'MANAGE_SLA');
        const slaDomainId = member.param(request.params, 'slaDomainId');
        const { workloadIds } = request.body;
        const domain =
          operationId === 'assignSlaDomain'
            ? state.slaDomains.assign(slaDomainId, workloadIds)
            : state.slaDomains.unassign(slaDomainId, workloadIds);
        return successEnvelope(slaDomainView(state, domain));
      },
    });
  };
  membership('assignSlaDomain', 'Protect workloads with an SLA Domain');
  membership('removeProtection', "Remove an SLA Domain's protection from workloads");

  const pausing = (
    operationId: 'pauseSlaDomain' | 'resumeSlaDomain',
    paused: boolean,
    summary: string,
  ): void => {
    const pause = route(operationId);
    app.route({
      method: pause.method,
      url: pause.url,
      config: operation(operationId, 'rest', rest),
      schema: {
        operationId: pause.operationId,
        tags,
        summary,
        description: 'Per cluster; all of its clusters when clusterIds is omitted. Idempotent.',
        params: pause.params,
        body: clusterIdsBody,
        response: { 200: slaDomainEnvelope, ...errorResponses },
      },
      handler: async (request) => {
        requirePermission(state, request, 'MANAGE_SLA');
        const slaDomainId = pause.param(request.params, 'slaDomainId');
        const clusterIds = request.body?.clusterIds;
        // requirePermission has refused a request without a principal.
        const caller = request.principal === null ? '' : state.accounts.nameOf(request.principal);
        const domain = paused
          ? state.slaDomains.pause(slaDomainId, clusterIds, { pausedBy: caller, note: '' })
          : state.slaDomains.resume(slaDomainId, clusterIds);
        return successEnvelope(slaDomainView(state, domain));
      },
    });
  };
  pausing('pauseSlaDomain', true, 'Pause an SLA Domain on clusters');
  pausing('resumeSlaDomain', false, 'Resume an SLA Domain on clusters');
}

/** The SLA Domains a filter field and text select (both interfaces filter the same way). */
export function slaFilter(
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
      const types = state.words.parseWorkloadTypes(text);
      if (types.length === 0) {
        throw RestError.invalid(`filterText: ${text} is not a workload type`);
      }
      return (domain) => domain.objectTypes.some((type) => types.includes(type));
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
