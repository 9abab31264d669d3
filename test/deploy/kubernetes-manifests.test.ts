import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ScaledObject } from '@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { Service } from 'kubernetes-models/v1/Service';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { checkDefinitions } from '../../src/definitions/load-definitions.js';
import { KubeletVolume } from '../testkit/kubelet-volume.js';
import { systemTool } from '../testkit/system-tool.js';

const TOOL = systemTool(
  'kubectl',
  'Debian: apt-get install -y kubectl',
  'the Kubernetes manifests tests',
);

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Each kind the manifests use, with the model that validates it against its schema. */
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'apps/v1/Deployment': Deployment,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'v1/ConfigMap': ConfigMap,
  'v1/Namespace': Namespace,
  'v1/PersistentVolumeClaim': PersistentVolumeClaim,
  'v1/Service': Service,
  'keda.sh/v1alpha1/ScaledObject': ScaledObject,
};

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
}

interface Container {
  args: string[];
  env: { name: string; value: string }[];
  securityContext: Record<string, unknown>;
  livenessProbe: { httpGet: { path: string } };
  readinessProbe: { httpGet: { path: string } };
  resources: { requests: Record<string, string> };
  volumeMounts: { name: string; mountPath: string; readOnly?: boolean }[];
}

interface PodSpec {
  securityContext: Record<string, unknown>;
  containers: Container[];
  volumes: { name: string; secret?: { secretName: string } }[];
}

interface MountingPodSpec {
  containers: {
    env: { name: string; value?: string }[];
    volumeMounts: { name: string; mountPath: string; subPath?: string }[];
  }[];
  volumes: { name: string; configMap?: { name: string }; secret?: { secretName: string } }[];
}

/** kustomize renders offline; kubernetes-models validates against the Kubernetes schemas. */
describe.skipIf(!TOOL.available)('Kubernetes manifests (deploy/kubernetes)', () => {
  it('render with kubectl kustomize and validate against the schemas of their kinds', async () => {
    const { stdout } = await run('kubectl', ['kustomize', 'deploy/kubernetes'], { cwd: ROOT });
    const manifests = parseAllDocuments(stdout).map((document) => document.toJS() as Manifest);
    expect(manifests.map((manifest) => manifest.kind).sort()).toEqual([
      'ConfigMap',
      'ConfigMap',
      'Deployment',
      'Deployment',
      'Deployment',
      'Namespace',
      'NetworkPolicy',
      'PersistentVolumeClaim',
      'PodDisruptionBudget',
      'PodDisruptionBudget',
      'ScaledObject',
      'Service',
      'Service',
    ]);
    for (const manifest of manifests) {
      const Model = MODELS[`${manifest.apiVersion}/${manifest.kind}`];
      expect(Model, `a schema for ${manifest.apiVersion} ${manifest.kind}`).toBeDefined();
      if (Model === undefined) continue;
      expect(
        () => new Model(manifest as never).validate(),
        `${manifest.kind} ${manifest.metadata.name}`,
      ).not.toThrow();
    }

    const deployments = manifests.filter((manifest) => manifest.kind === 'Deployment');
    for (const deployment of deployments) {
      const name = deployment.metadata.name;
      const pod = (deployment.spec as { template: { spec: PodSpec } }).template.spec;
      expect(pod.securityContext, name).toMatchObject({ runAsNonRoot: true });
      const [container] = pod.containers;
      expect(container?.securityContext, name).toMatchObject({
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
      });
      expect(container?.livenessProbe.httpGet.path).toBe('/healthz');
      expect(container?.readinessProbe.httpGet.path).toBe('/readyz');
      expect(container?.resources.requests).toMatchObject({ cpu: '50m', memory: '256Mi' });
      // The ops server asks who you are, from a mounted Secret.
      const tokenFile = container?.env.find((entry) => entry.name === 'PAW_OPS_TOKEN_FILE');
      expect(tokenFile?.value, name).toBe('/run/secrets/paw-ops/tokens');
      expect(pod.volumes.find((volume) => volume.name === 'ops-tokens')?.secret?.secretName).toBe(
        'paw-ops-tokens',
      );
      // Every process calls the platform (the scheduler for protection coverage), with
      // credentials mounted read-only where PAW_CREDENTIALS_FILE looks.
      const credentials = container?.volumeMounts.find((mount) => mount.name === 'credentials');
      expect(credentials?.readOnly, name).toBe(true);
      const credentialsFile = container?.env.find((entry) => entry.name === 'PAW_CREDENTIALS_FILE');
      expect(credentialsFile?.value, name).toBe(`${credentials?.mountPath}/credentials.json`);
    }
    // The rotation sinks are on a writable volume, in the rotation worker only.
    const rotation = deployments.find((d) => d.metadata.name === 'paw-rotation-worker');
    const rotationPod = (rotation?.spec as { template: { spec: PodSpec } }).template.spec;
    expect(
      rotationPod.containers[0]?.volumeMounts.find((mount) => mount.name === 'rotated-secrets'),
    ).toMatchObject({ mountPath: '/var/lib/paw/secrets' });
    expect(rotationPod.containers[0]?.args).toEqual(['worker', '--kinds', 'rotate-secret']);

    const scaled = manifests.find((manifest) => manifest.kind === 'ScaledObject');
    expect(scaled?.spec).toMatchObject({
      scaleTargetRef: { name: 'paw-worker' },
      triggers: [{ type: 'redis', metadata: { listName: 'paw:snapshot:wait' } }],
    });
    // Only Prometheus and the ingress controller reach the ops port of every paw pod (the
    // kubelet's probes come from the node, which the policy does not govern).
    const policy = manifests.find((manifest) => manifest.kind === 'NetworkPolicy');
    expect(policy?.spec).toEqual({
      podSelector: { matchLabels: { 'app.kubernetes.io/name': 'paw' } },
      policyTypes: ['Ingress'],
      ingress: [
        {
          from: [
            { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } },
            {
              namespaceSelector: {
                matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' },
              },
            },
          ],
          ports: [{ port: 'ops', protocol: 'TCP' }],
        },
      ],
    });
    for (const deployment of deployments) {
      const labels = (
        deployment.spec as { template: { metadata: { labels: Record<string, string> } } }
      ).template.metadata.labels;
      expect(labels['app.kubernetes.io/name'], `${deployment.metadata.name} is covered`).toBe(
        'paw',
      );
      const pod = (
        deployment.spec as { template: { spec: { containers: { ports: { name: string }[] }[] } } }
      ).template.spec;
      expect(pod.containers.flatMap((c) => c.ports.map((p) => p.name))).toEqual(['ops']);
    }
    const settings = manifests.find((m) => m.metadata.name.startsWith('paw-settings'));
    expect(settings?.data?.['PAW_REDIS_PREFIX']).toBe('paw');
  });

  it('mount the definitions and secrets where paw reads them, as kubelet lays them out, and the definitions load', async () => {
    const { stdout } = await run('kubectl', ['kustomize', 'deploy/kubernetes'], { cwd: ROOT });
    const manifests = parseAllDocuments(stdout).map((document) => document.toJS() as Manifest);
    const jobs = manifests.find(
      (m) => m.kind === 'ConfigMap' && m.metadata.name.startsWith('paw-jobs'),
    );
    const scheduler = manifests.find(
      (m) => m.kind === 'Deployment' && m.metadata.name === 'paw-scheduler',
    );
    const pod = (scheduler?.spec as { template: { spec: MountingPodSpec } }).template.spec;
    const [container] = pod.containers;
    const env = (name: string): string | undefined =>
      container?.env.find((entry) => entry.name === name)?.value;
    const jobsVolume = pod.volumes.find((volume) => volume.configMap?.name === jobs?.metadata.name);
    const jobsMount = container?.volumeMounts.find((mount) => mount.name === jobsVolume?.name);
    expect(jobsMount?.mountPath).toBe(env('PAW_JOBS_DIR'));
    // A subPath mount is never updated by kubelet: every mount is of a whole volume.
    for (const deployment of manifests.filter((m) => m.kind === 'Deployment')) {
      const spec = (deployment.spec as { template: { spec: MountingPodSpec } }).template.spec;
      for (const mount of spec.containers.flatMap((c) => c.volumeMounts)) {
        expect(mount.subPath, `${deployment.metadata.name} ${mount.name}`).toBeUndefined();
      }
    }
    // Each file setting names a key of the volume mounted at its folder.
    const tokens = env('PAW_OPS_TOKEN_FILE') ?? '';
    const tokensMount = container?.volumeMounts.find((mount) => mount.name === 'ops-tokens');
    expect(`${tokensMount?.mountPath}/tokens`).toBe(tokens);

    // The ConfigMap's keys, laid out and linked as kubelet does, load as paw validate loads them.
    const volume = await KubeletVolume.create(jobs?.data ?? {});
    const report = await checkDefinitions(volume.dir);
    expect(report.problems).toEqual([]);
    expect(report.definitions.map((loaded) => loaded.definition.id)).toEqual(['nightly-vms']);
  });

  it('ship job definitions that paw validate accepts', async () => {
    const report = await checkDefinitions(`${ROOT}deploy/kubernetes/jobs`);
    expect(report.problems).toEqual([]);
    expect(report.definitions.length).toBeGreaterThan(0);
  });
});
