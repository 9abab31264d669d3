/** One sample of a Prometheus text exposition. */
interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** A parsed exposition: samples plus the declared TYPE of each metric family. */
export interface Exposition {
  readonly samples: readonly Sample[];
  readonly types: ReadonlyMap<string, string>;
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)(?: (-?\\d+))?$`);
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(?:,|$)/y;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

/**
 * Parses the Prometheus text format (version 0.0.4) strictly: every line must be a HELP or TYPE
 * comment or a well-formed sample, each family is typed once before its samples, and values are
 * numbers (or NaN in any case, +Inf, -Inf). Throws naming the first bad line.
 */
export function parsePrometheusText(text: string): Exposition {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    const where = `line ${index + 1}: ${JSON.stringify(line)}`;
    if (line === '') return;
    if (line.startsWith('#')) {
      const match = /^# (HELP|TYPE) (\S+)(?: (.*))?$/.exec(line);
      if (match === null) throw new Error(`malformed comment at ${where}`);
      if (match[1] === 'TYPE') {
        const [name = '', type = ''] = [match[2], match[3]];
        if (!TYPES.has(type)) throw new Error(`unknown type at ${where}`);
        if (types.has(name)) throw new Error(`family typed twice at ${where}`);
        types.set(name, type);
      }
      return;
    }
    const match = SAMPLE.exec(line);
    if (match === null) throw new Error(`malformed sample at ${where}`);
    const [, name = '', labelText = '', valueText = ''] = match;
    const labels: Record<string, string> = {};
    LABEL.lastIndex = 0;
    while (LABEL.lastIndex < labelText.length) {
      const label = LABEL.exec(labelText);
      if (label === null) throw new Error(`malformed labels at ${where}`);
      labels[label[1] ?? ''] = (label[2] ?? '').replace(/\\(.)/g, (_, c: string) =>
        c === 'n' ? '\n' : c,
      );
    }
    // Prometheus reads NaN in any case (prom-client writes "Nan", as its event-loop lag gauges
    // are until their sampler's first sample after a scrape).
    const isNaNText = /^nan$/i.test(valueText);
    const value = isNaNText
      ? Number.NaN
      : valueText === '+Inf'
        ? Infinity
        : valueText === '-Inf'
          ? -Infinity
          : Number(valueText);
    if (valueText === '' || (Number.isNaN(value) && !isNaNText)) {
      throw new Error(`bad value at ${where}`);
    }
    const family = name.replace(/_(bucket|sum|count|total|created)$/, '');
    if (!types.has(name) && !types.has(family))
      throw new Error(`sample before its TYPE at ${where}`);
    samples.push({ name, labels, value });
  });
  return { samples, types };
}

/** The sum of the samples named `name` whose labels include `labels`. */
export function sumOf(
  exposition: Exposition,
  name: string,
  labels: Readonly<Record<string, string>> = {},
): number {
  return exposition.samples
    .filter((sample) => sample.name === name)
    .filter((sample) =>
      Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
    )
    .reduce((sum, sample) => sum + sample.value, 0);
}
