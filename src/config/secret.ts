import { inspect } from 'node:util';

/**
 * A secret value (a client secret, a token) that cannot leak by accident: printing, logging,
 * JSON-serialising or interpolating it yields `[redacted]`. Only {@link Secret.reveal} gives the
 * value, and only code that sends it to the platform should call it.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return '[redacted]';
  }

  toJSON(): string {
    return '[redacted]';
  }

  [inspect.custom](): string {
    return 'Secret([redacted])';
  }
}
