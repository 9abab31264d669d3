// autocannon ships no types; this declares the part of its API the benchmarks use
// (https://github.com/mcollina/autocannon#api), rather than adding @types/autocannon.
declare module 'autocannon' {
  namespace autocannon {
    interface Request {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string;
    }
    interface Options {
      url: string;
      connections?: number;
      duration?: number;
      headers?: Record<string, string>;
      requests?: (Request & { setupRequest?: (request: Request) => Request })[];
    }
    interface Histogram {
      average: number;
      mean: number;
      p50: number;
      p99: number;
      max: number;
      total: number;
    }
    interface Result {
      requests: Histogram;
      latency: Histogram;
      non2xx: number;
      errors: number;
      timeouts: number;
    }
  }
  function autocannon(options: autocannon.Options): Promise<autocannon.Result>;
  export default autocannon;
}
