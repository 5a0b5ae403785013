/** @module `@webhook-idempotency/core`: re-exports only. */
export * from './constants';
export * from './errors';
export * from './request-key';
export * from './guard';
export * from './memory-store';
export type * from './types';
export * as providers from './providers';
export * from './http';
