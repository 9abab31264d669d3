import { readFileSync } from 'node:fs';

/**
 * The few REST calls a snapshot script needs, written the way a user writes them: plain
 * `fetch`, the credentials file the platform's UI hands out, a token from
 * `/api/client_token`, the job-status link from the trigger's `metadata`. A 429 or an
 * expired token waits a poll interval (or fetches a new token) and tries again; anything else
 * unexpected stops the script.
 */
export class SnapshotApi {
  tooManyRequests = 0;
  private token = '';

  private constructor(
    private readonly baseUrl: string,
    private readonly credentials: { client_id: string; client_secret: string },
    private readonly pollMs: number,
  ) {}

  static async connect(credentialsFile: string, pollMs: number): Promise<SnapshotApi> {
    const credentials = JSON.parse(readFileSync(credentialsFile, 'utf8')) as {
      client_id: string;
      client_secret: string;
      access_token_uri: string;
    };
    const baseUrl = credentials.access_token_uri.replace(/\/api\/client_token$/, '');
    const api = new SnapshotApi(baseUrl, credentials, pollMs);
    await api.refreshToken();
    return api;
  }

  /** Triggers a snapshot of the workload and returns its job-status link. */
  async trigger(workloadId: string): Promise<string> {
    const body = (await this.call(
      'POST',
      `${this.baseUrl}/api/rest/workloads/${workloadId}/snapshots`,
    )) as {
      metadata: { jobStatusUrl: string };
    };
    return body.metadata.jobStatusUrl;
  }

  /** The job's status (QUEUED, RUNNING, …, SUCCEEDED, FAILED, CANCELED). */
  async status(jobStatusUrl: string): Promise<string> {
    const body = (await this.call('GET', jobStatusUrl)) as { data: { status: string } };
    return body.data.status;
  }

  /** Triggers a snapshot, then reads its status every poll interval until it has ended. */
  async snapshotAndWait(workloadId: string): Promise<string> {
    const link = await this.trigger(workloadId);
    for (;;) {
      await sleep(this.pollMs);
      const status = await this.status(link);
      if (['SUCCEEDED', 'FAILED', 'CANCELED'].includes(status)) return status;
    }
  }

  private async call(method: string, url: string): Promise<unknown> {
    for (;;) {
      const response = await fetch(url, {
        method,
        headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/json' },
        ...(method === 'POST' ? { body: '{}' } : {}),
      });
      if (response.status === 429) {
        this.tooManyRequests++;
        await response.arrayBuffer();
        await sleep(this.pollMs);
        continue;
      }
      if (response.status === 401) {
        await response.arrayBuffer();
        await this.refreshToken();
        continue;
      }
      if (!response.ok)
        throw new Error(`${method} ${url} answered ${response.status}: ${await response.text()}`);
      return response.json();
    }
  }

  private async refreshToken(): Promise<void> {
    for (;;) {
      const response = await fetch(`${this.baseUrl}/api/client_token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(this.credentials),
      });
      if (response.status === 429) {
        this.tooManyRequests++;
        await response.arrayBuffer();
        await sleep(this.pollMs);
        continue;
      }
      if (!response.ok) throw new Error(`the token request answered ${response.status}`);
      this.token = ((await response.json()) as { access_token: string }).access_token;
      return;
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
