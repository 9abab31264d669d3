/**
 * The interfaces paw's jobs can run through (`platform.api`). Data only, imported by the
 * settings schema.
 */
export const PLATFORM_APIS = ['rest', 'graphql'] as const;
export type PlatformApiKind = (typeof PLATFORM_APIS)[number];
