/** @module Validation of preset options at construction: a wrong option throws a `ConfigError` naming it. */
import type { KeyObject } from 'node:crypto';
import { ConfigError } from '@webhook-idempotency/core';

/** The clock option of a preset that checks a signed time: injected by tests. */
export interface ClockOption {
  /** Milliseconds since the epoch, for tests. Defaults to `Date.now`. */
  clock?: () => number;
}

/**
 * The window option of a preset that checks a signed time: how far that time may be from now,
 * either way, in seconds. A request outside it fails verification, before its receipt is read.
 * Each preset's options type says its default: most follow the provider's own SDK; a few check no
 * window unless you set one (the provider documents none, or its retries may keep their first
 * stamp).
 */
export interface ToleranceOption {
  /** In seconds, a positive number; see the preset's options for its default. */
  toleranceSeconds?: number;
}

/** Fails unless the factory was given an options object. */
export function requireOptions<T extends object>(preset: string, options: T | undefined): T {
  if (typeof options !== 'object' || options === null) {
    throw new ConfigError('options', `${preset}() needs an options object`);
  }
  return options;
}

/** A required non-empty string option (secrets, logins). */
export function requireString(
  preset: string,
  option: string,
  value: unknown,
  what: string,
): string {
  if (typeof value !== 'string' || value.length === 0) {
    throw new ConfigError(
      option,
      `${preset}() needs ${what} as a non-empty string, got ${describe(value)}`,
    );
  }
  return value;
}

/** An optional non-empty string option; `undefined` gives the default. */
export function optionalString(
  preset: string,
  option: string,
  value: unknown,
  fallback: string,
): string {
  return value === undefined ? fallback : requireString(preset, option, value, `"${option}"`);
}

/**
 * A timestamp tolerance in seconds: a positive finite number; `undefined` gives the default, or
 * `undefined` itself (no window checked) for a preset that has none.
 */
export function toleranceOption(preset: string, value: unknown, fallback: number): number;
export function toleranceOption(preset: string, value: unknown): number | undefined;
export function toleranceOption(
  preset: string,
  value: unknown,
  fallback?: number,
): number | undefined {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new ConfigError(
      'toleranceSeconds',
      `${preset}() needs a positive number of seconds, got ${describe(value)}`,
    );
  }
  return value;
}

/** The injectable clock (milliseconds since the epoch); `undefined` gives `Date.now`. */
export function clockOption(preset: string, value: unknown): () => number {
  if (value === undefined) return Date.now;
  if (typeof value !== 'function') {
    throw new ConfigError(
      'clock',
      `${preset}() needs a function returning milliseconds since the epoch, got ${describe(value)}`,
    );
  }
  return value as () => number;
}

/** One of a fixed set of string values; `undefined` gives the default. */
export function oneOf<T extends string>(
  preset: string,
  option: string,
  value: unknown,
  allowed: readonly T[],
  fallback: T,
): T {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw new ConfigError(
      option,
      `${preset}() accepts ${allowed.map((a) => `'${a}'`).join(' or ')}, got ${describe(value)}`,
    );
  }
  return value as T;
}

/** An optional boolean option; `undefined` gives the default. */
export function booleanOption(
  preset: string,
  option: string,
  value: unknown,
  fallback: boolean,
): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean')
    throw new ConfigError(option, `${preset}() needs true or false, got ${describe(value)}`);
  return value;
}

/**
 * A public key option: `read` makes the key of what the user gave, `fits` says whether it is the
 * kind the provider signs with; a `ConfigError` naming `publicKey` says `unreadable` when it
 * cannot be read, `wrongKind` when it does not fit.
 */
export function publicKeyOption(
  read: () => KeyObject,
  fits: (key: KeyObject) => boolean,
  [unreadable, wrongKind]: readonly [unreadable: string, wrongKind: string],
): KeyObject {
  let key: KeyObject;
  try {
    key = read();
  } catch {
    throw new ConfigError('publicKey', unreadable);
  }
  if (!fits(key)) throw new ConfigError('publicKey', wrongKind);
  return key;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return value.length === 0 ? 'an empty string' : 'a string';
  return typeof value;
}
