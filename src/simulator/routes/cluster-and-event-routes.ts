import { inArrayOrder } from '../pagination.js';
import { collectionEnvelope } from '../rest-collection.js';
import { requirePermission } from '../permission-check.js';
import type { SimEvent } from '../records.js';
import { RestError } from '../rest-error.js';
import { layoutRoute } from '../rest-layouts.js';
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

/** Listing clusters and activity events, where the layout puts them. */
export function registerClusterAndEventRoutes(app: ZodApp, state: SimulatorState): void {
  const clusters = layoutRoute(state.options.restLayout, 'listClusters');
  app.route({
    method: clusters.method,
    url: clusters.url,
    config: operation('listClusters', 'rest', rest),
    schema: {
      operationId: clusters.operationId,
      tags: ['Clusters'],
      summary: 'List clusters',
      querystring: listClustersQuery,
      response: { 200: collectionEnvelopeOf(clusterSchema), ...errorResponses },
    },
    handler: async (request) => {
      requirePermission(state, request, 'VIEW_INVENTORY');
      const { name, type, connectionState, first, after } = request.query;
      const needle = name?.toLowerCase();
      const filtered = needle !== undefined || type !== undefined || connectionState !== undefined;
      return collectionEnvelope(
        {
          list: 'clusters',
          items: inArrayOrder(state.inventory.clusters),
          keyOf: (cluster) => [cluster.name, cluster.id],
          filter: filtered
            ? (cluster) =>
                (needle === undefined || cluster.name.toLowerCase().includes(needle)) &&
                (type === undefined || cluster.type === type) &&
                (connectionState === undefined || cluster.connectionState === connectionState)
            : undefined,
        },
        { first, after },
        clusterView,
      );
    },
  });

  const events = layoutRoute(state.options.restLayout, 'listEvents');
  app.route({
    method: events.method,
    url: events.url,
    config: operation('listEvents', 'rest', rest),
    schema: {
      operationId: events.operationId,
      tags: ['Events'],
      summary: 'List activity events, newest first',
      querystring: listEventsQuery,
      response: { 200: collectionEnvelopeOf(eventSchema), ...errorResponses },
    },
    handler: async (request) => {
      requirePermission(state, request, 'VIEW_INVENTORY');
      const { objectId, startTime, endTime, severity, first, after } = request.query;
      const type =
        request.query.type === undefined
          ? undefined
          : state.words.parseEventType(request.query.type);
      const status =
        request.query.status === undefined
          ? undefined
          : state.words.parseEventStatus(request.query.status);
      if (request.query.type !== undefined && type === undefined) {
        throw RestError.invalid(`type: ${request.query.type} is not an event type`);
      }
      if (request.query.status !== undefined && status === undefined) {
        throw RestError.invalid(`status: ${request.query.status} is not an event status`);
      }
      const from = startTime === undefined ? undefined : Date.parse(startTime);
      const to = endTime === undefined ? undefined : Date.parse(endTime);
      if (from !== undefined && to !== undefined && from > to) {
        throw RestError.invalid('startTime must not be after endTime');
      }
      const filtered = [objectId, type, status, severity, from, to].some(
        (value) => value !== undefined,
      );
      const happened = state.events.happened();
      const last = happened.length - 1;
      return collectionEnvelope(
        {
          list: 'events',
          items: { length: happened.length, at: (index) => happened[last - index] as SimEvent },
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
        },
        { first, after },
        (event) => eventView(state, event),
      );
    },
  });
}
