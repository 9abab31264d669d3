import { createServer } from 'node:net';

/**
 * Asks the kernel for a TCP port that is free on 127.0.0.1 right now.
 *
 * There is an unavoidable window between closing the probe and the caller binding the port, so
 * callers that start a server on it should retry with a new port if the bind fails.
 */
export async function findFreePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.once('error', reject);
    probe.listen({ port: 0, host }, () => {
      const address = probe.address();
      if (address === null || typeof address === 'string') {
        probe.close();
        reject(new Error(`could not read the probe's port on ${host}`));
        return;
      }
      probe.close(() => resolve(address.port));
    });
  });
}
