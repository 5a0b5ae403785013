import {
  ClaimLost,
  ConfigError,
  ErrorCode,
  FingerprintMismatch,
  IdempotencyError,
  RequestInProgress,
  StoreError,
  isIdempotencyError,
} from '../src';
import { HTTP_STATUS_BY_CODE } from '../src/adapter';

describe('errors', () => {
  it('every code has an HTTP status', () => {
    for (const code of Object.values(ErrorCode))
      expect(HTTP_STATUS_BY_CODE[code]).toBeGreaterThanOrEqual(400);
  });

  it('subclasses carry literal names, codes, statuses and a docs pointer', () => {
    const cases: Array<[IdempotencyError, string, number]> = [
      [new RequestInProgress('p', '1', 7), 'RequestInProgress', 409],
      [new FingerprintMismatch('p', '1'), 'FingerprintMismatch', 422],
      [new ClaimLost('p', '1', 1), 'ClaimLost', 409],
      [new StoreError('claim', new Error('down')), 'StoreError', 503],
      [new ConfigError('store', 'missing'), 'ConfigError', 500],
    ];
    for (const [error, name, status] of cases) {
      expect(error).toBeInstanceOf(IdempotencyError);
      expect(error.name).toBe(name);
      expect(error.httpStatus).toBe(status);
      expect(error.message).toContain(`docs/reference/errors.md#${error.code.toLowerCase()}`);
    }
  });

  it('StoreError keeps the driver error as cause', () => {
    const cause = Object.assign(new Error('too many clients'), { code: '53300' });
    const error = new StoreError('claim', cause);
    expect(error.cause).toBe(cause);
    expect(error.message).toContain('too many clients');
  });

  it('isIdempotencyError recognises a copy from another installation by name and code', () => {
    const foreign = Object.assign(new Error('x'), {
      name: 'RequestInProgress',
      code: 'ERR_IDEMPOTENCY_IN_PROGRESS',
    });
    expect(isIdempotencyError(foreign)).toBe(true);
    expect(
      isIdempotencyError(
        Object.assign(new Error('x'), { name: 'RequestInProgress', code: 'ECONNRESET' }),
      ),
    ).toBe(false);
    expect(isIdempotencyError(new Error('x'))).toBe(false);
    expect(isIdempotencyError(null)).toBe(false);
    expect(isIdempotencyError('ERR_IDEMPOTENCY_STORE')).toBe(false);
  });
});

describe('errors reference', () => {
  it('docs/reference/errors.md has a ### entry for every code', () => {
    const { readFileSync } = require('node:fs') as typeof import('node:fs');
    const doc = readFileSync(
      require('node:path').join(__dirname, '../../../docs/reference/errors.md'),
      'utf8',
    );
    for (const code of Object.values(ErrorCode))
      expect(doc).toContain(`### ${code.toLowerCase()}\n`);
  });
});
