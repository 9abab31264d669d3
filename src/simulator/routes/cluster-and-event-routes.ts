import { paginate } from '../pagination.js';
import { requirePermission } from '../permission-check.js';
import type { SimCluster, SimEvent } from '../records.js';
import { RestError, successEnvelope } from '../rest-error.js';
import {
  clusterSchema,
  collectionEnvelopeOf,
  errorResponses,
  eventSchema,
  listClustersQuery,
  listEventsQuery,
} from '../rest-schemas.js';
import { clusterView, eventView } from '../rest-views.js';
import { operation, type ZodApp } from '../route-config.js';
import type { SimulatorState } from '../simulator-state.js';

const rest = { bearerAuth: true, rateLimited: true };

/** Listing clusters and activity events. */
export function registerClusterAndEventRoutes(app: ZodApp, state: SimulatorState): void {
  app.route({
    method: 'GET',
    url: '/clusters',
    config: operation('listClusters', 'rest', rest),
    schema: {
      operationId: 'listClusters',
      tags: ['Clusters'],
      summary: 'List clusters',
      querystring: listClustersQuery,
      response: { 200: collectionEnvelopeOf(clusterSchema), ...errorResponses },
    },
    handler: async (request) => {
      requirePermission(state, request, 'VIEW_INVENTORY');
      const { name, type, connectionState, first, after } = request.query;
      const needle = name?.toLowerCase();
      const clusters = state.inventory.clusters;
      const filtered = needle !== undefined || type !== undefined || connectionState !== undefined;
      const page = paginate({
        list: 'clusters',
        length: clusters.length,
        at: (index) => clusters[index] as SimCluster,
        keyOf: (cluster) => [cluster.name, cluster.id],
        filter: filtered
          ? (cluster) =>
              (needle === undefined || cluster.name.toLowerCase().includes(needle)) &&
              (type === undefined || cluster.type === type) &&
              (connectionState === undefined || cluster.connectionState === connectionState)
          : undefined,
        first,
        after,
      });
      return successEnvelope({ ...page, nodes: page.nodes.map(clusterView) });
    },
  });

  app.route({
    method: 'GET',
    url: '/events',
    config: operation('listEvents', 'rest', rest),
    schema: {
      operationId: 'listEvents',
      tags: ['Events'],
      summary: 'List activity events, newest first',
      querystring: listEventsQuery,
      response: { 200: collectionEnvelopeOf(eventSchema), ...errorResponses },
    },
    handler: async (request) => {
      requirePermission(state, request, 'VIEW_INVENTORY');
      const { objectId, type, status, severity, startTime, endTime, first, after } = request.query;
      const from = startTime === undefined ? undefined : Date.parse(startTime);
      const to = endTime === undefined ? undefined : Date.parse(endTime);
      if (from !== undefined && to !== undefined && from > to) {
        throw RestError.invalid('startTime must not be after endTime');
      }
      const filtered = [objectId, type, status, severity, from, to].some(
        (value) => value !== undefined,
      );
      const events = state.events.happened();
      const last = events.length - 1;
      const page = paginate({
        list: 'events',
        length: events.length,
        at: (index) => events[last - index] as SimEvent,
        keyOf: (event) => [event.time, event.id],
        descending: true,
        filter: filtered
          ? (event) =>
              (objectId === undefined || event.objectId === objectId) &&
              (type === undefined || event.type === type) &&
              (status === undefined || event.status === status) &&
              (severity === undefined || event.severity === severity) &&
              (from === undefined || event.time >= from) &&
              (to === undefined || event.time <= to)
          : undefined,
        first,
        after,
      });
      return successEnvelope({ ...page, nodes: page.nodes.map(eventView) });
    },
  });
}
