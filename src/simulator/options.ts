import { z } from 'zod';
import { faultsSchema } from './fault-rules.js';
import { jobStatusLinkSchema } from './job-status-link.js';
import { REST_LAYOUTS } from './rest-layouts.js';
import { simVocabularySchema, typeSpellingsSchema } from './sim-vocabulary.js';

const port = z.number().int().min(0).max(65535);

/** How on-demand snapshot jobs behave (see docs/simulator.md, "The job engine"). */
export const jobOptionsSchema = z.strictObject({
  /** Jobs a cluster runs at once; the rest wait in QUEUED for the earliest free slot. */
  concurrencyPerCluster: z.number().int().min(1).max(10_000).default(32),
  /** Lognormal duration of a job from start to end, in platform seconds. */
  durationSeconds: z
    .strictObject({
      median: z
        .number()
        .positive()
        .max(7 * 86_400)
        .default(120),
      sigma: z.number().min(0).max(3).default(0.5),
      /** Shortest duration drawn; keeps every phase visible to a poller. */
      min: z.number().positive().default(10),
    })
    .default({ median: 120, sigma: 0.5, min: 10 }),
  /** Shortest time a job spends QUEUED, in platform seconds, even when a slot is free. */
  queuedSeconds: z.number().min(0).max(86_400).default(2),
  /** Probability that a job ends FAILED, and that it ends CANCELED. */
  failureRate: z.number().min(0).max(1).default(0.03),
  cancelRate: z.number().min(0).max(1).default(0.01),
});

/**
 * Everything a simulator can be told, with its default: the options of `startSimulator()`,
 * the `paw sim` flags and its `--config` YAML file are all this one schema.
 */
export const simulatorOptionsSchema = z
  .strictObject({
    /** Port of `{base_url}` on 127.0.0.1; 0 picks a free one. */
    port: port.default(0),
    /**
     * Ports of the clusters, in inventory order. When omitted, clusters take the ports after
     * `port` (port + 1, + 2, …) or free ports when `port` is 0.
     */
    clusterPorts: z.array(port).optional(),
    /** Seed of the inventory and of every random draw (job durations, faults). */
    seed: z.number().int().min(0).max(4_294_967_295).default(1),
    /** Number of workloads in the seeded inventory. */
    workloads: z.number().int().min(1).max(1_000_000).default(200),
    /** Number of clusters (at least 3: one Disconnected and one below 9.6.0 are always there). */
    clusters: z.number().int().min(3).max(50).default(4),
    /** Platform time runs this many times faster than real time (durations only). */
    timeScale: z.number().positive().max(10_000_000).default(1),
    /** Access-token lifetime in platform seconds (the platform allows at most 24 hours). */
    tokenLifetimeSeconds: z.number().int().min(1).max(86_400).default(43_200),
    /** Cluster session lifetime in platform seconds. */
    clusterSessionLifetimeSeconds: z
      .number()
      .int()
      .min(1)
      .max(30 * 86_400)
      .default(86_400),
    /** Live sessions an account may hold on one cluster. */
    clusterSessionCap: z.number().int().min(1).max(10_000).default(10),
    /** Platform API token bucket; 0 requests per second turns it off. */
    rateLimit: z
      .strictObject({
        requestsPerSecond: z.number().min(0).max(1_000_000).default(50),
        /** Bucket size: how many requests may arrive at once; `requestsPerSecond` by default. */
        burst: z.number().positive().optional(),
      })
      .default({ requestsPerSecond: 50 }),
    faults: faultsSchema.default({ operations: {} }),
    jobs: jobOptionsSchema.default(jobOptionsSchema.parse({})),
    jobStatusLink: jobStatusLinkSchema.default(jobStatusLinkSchema.parse({})),
    /**
     * The words of REST records and of GraphQL job statuses: this project's model (`spec`) or
     * the GraphQL schema's (`graphql`); see docs/platform-model.md.
     */
    vocabulary: simVocabularySchema,
    /** Single workload types respelled on top of the vocabulary (a word paw may not know). */
    typeSpellings: typeSpellingsSchema,
    /**
     * Cluster-local SLA Domains (`ClusterSlaDomain`), one per cluster, listed by GraphQL
     * `slaDomains` beside the global ones, as the platform lists them.
     */
    clusterSlaDomains: z.boolean().default(true),
    /** REST events carry no job id, as the real platform's activity records do. */
    eventsWithoutJobIds: z.boolean().default(false),
    /** Where the REST routes live: this project's model, or a moved and renamed `v2`. */
    restLayout: z.enum(REST_LAYOUTS).default('default'),
    oauth: z
      .strictObject({
        /** Redirect URIs registered for the OAuth application. */
        redirectUris: z
          .array(z.url({ protocol: /^https?$/ }))
          .min(1)
          .default(['http://127.0.0.1:8976/callback']),
        /** The one scope the retrieval feature offers. */
        scope: z.string().min(1).default('retrieval'),
      })
      .default({ redirectUris: ['http://127.0.0.1:8976/callback'], scope: 'retrieval' }),
  })
  .refine(
    (options) =>
      options.clusterPorts === undefined || options.clusterPorts.length === options.clusters,
    { message: 'clusterPorts must list one port per cluster', path: ['clusterPorts'] },
  );

export type SimulatorOptions = z.output<typeof simulatorOptionsSchema>;
export type SimulatorOptionsInput = z.input<typeof simulatorOptionsSchema>;
export type JobOptions = z.output<typeof jobOptionsSchema>;
