/** @module The framework-free HTTP engine: re-exports only. */
export * from './answers';
export * from './body';
export * from './constants';
export * from './engine';
export * from './fingerprint';
export * from './headers';
export * from './options';
export * from './response-codec';
export type * from './types';
