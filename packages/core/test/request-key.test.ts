import { InvalidRequestKey, MAX_KEY_LENGTH, RequestKey, isIdempotencyError } from '../src';
import { MAX_KEY_BYTES, presentExternalId } from '../src/adapter';

function invalid(fn: () => unknown): InvalidRequestKey {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidRequestKey);
    return error as InvalidRequestKey;
  }
  throw new Error('expected InvalidRequestKey');
}

describe('RequestKey', () => {
  it('keeps both parts exactly as given (nothing trimmed or normalised)', () => {
    const key = new RequestKey(' Stripe', 'evt_1 ');
    expect(key.provider).toBe(' Stripe');
    expect(key.externalId).toBe('evt_1 ');
    expect(String(key)).toBe(' Stripe/evt_1 ');
  });

  it('accepts numbers and bigints from providers and turns them into strings', () => {
    expect(new RequestKey('telegram', 123456789).externalId).toBe('123456789');
    expect(new RequestKey('click', 9007199254740993n).externalId).toBe('9007199254740993');
    expect(new RequestKey('telegram', 0).externalId).toBe('0');
  });

  it.each([
    [1.5, 'safe integers'],
    [Number.NaN, 'safe integers'],
    [2 ** 60, 'safe integers'],
  ])('refuses the number %p for externalId', (value, message) => {
    expect(invalid(() => new RequestKey('p', value)).message).toContain(message);
  });

  it.each([
    ['provider', () => new RequestKey('', 'x'), 'is empty'],
    ['externalId', () => new RequestKey('p', ''), 'is empty'],
    ['provider', () => new RequestKey(undefined as never, 'x'), 'must be a string'],
    ['externalId', () => new RequestKey('p', null as never), 'must be a string'],
    ['externalId', () => new RequestKey('p', { id: 1 } as never), 'must be a string'],
    ['externalId', () => new RequestKey('p', 'a\u0000b'), 'NUL'],
    ['provider', () => new RequestKey('p\uD800', 'x'), 'surrogate'],
  ] as const)('names the field %s: %#', (field, build, message) => {
    const error = invalid(build);
    expect(error.field).toBe(field);
    expect(error.code).toBe('ERR_IDEMPOTENCY_KEY_INVALID');
    expect(error.httpStatus).toBe(400);
    expect(error.message).toContain(message);
    expect(isIdempotencyError(error)).toBe(true);
  });

  it('accepts exactly 160 characters, counting 4-byte characters as one', () => {
    expect(new RequestKey('p', 'a'.repeat(MAX_KEY_LENGTH)).externalId).toHaveLength(160);
    const emoji = '😀'.repeat(MAX_KEY_LENGTH); // 320 UTF-16 units, 640 bytes
    expect(Buffer.byteLength(emoji)).toBe(MAX_KEY_BYTES);
    expect(new RequestKey('p', emoji).externalId).toBe(emoji);
  });

  it('refuses 161 characters, naming the field and the limit', () => {
    const error = invalid(() => new RequestKey('p'.repeat(161), 'x'));
    expect(error.field).toBe('provider');
    expect(error.message).toContain('161 characters');
    expect(invalid(() => new RequestKey('p', '😀'.repeat(161))).field).toBe('externalId');
  });

  it('keys numbers by value: -0 and 0 share the key "0", 7 and "7" share "7"; strings keep their text (issue 8 item 13)', () => {
    expect(new RequestKey('p', -0).externalId).toBe('0');
    expect(new RequestKey('p', -0)).toEqual(new RequestKey('p', 0));
    expect(new RequestKey('p', JSON.parse('{"id":-0}').id as number).externalId).toBe('0');
    expect(new RequestKey('p', 7)).toEqual(new RequestKey('p', '7'));
    expect(new RequestKey('p', '-0').externalId).toBe('-0');
    expect(new RequestKey('p', 1e3).externalId).toBe('1000');
  });

  it('presentExternalId: absent is undefined, anything else reaches RequestKey unchanged to be judged there', () => {
    for (const absent of [undefined, null, '']) expect(presentExternalId(absent)).toBeUndefined();
    expect(presentExternalId('evt_1')).toBe('evt_1');
    expect(presentExternalId(0)).toBe(0);
    const object = { id: 1 };
    expect(presentExternalId(object)).toBe(object);
    expect(invalid(() => new RequestKey('p', presentExternalId(object)!)).message).toContain(
      'must be a string, number or bigint, got object',
    );
    expect(invalid(() => new RequestKey('p', presentExternalId(true)!)).code).toBe(
      'ERR_IDEMPOTENCY_KEY_INVALID',
    );
  });

  it('from() passes a RequestKey through and validates plain objects', () => {
    const key = new RequestKey('a', 'b');
    expect(RequestKey.from(key)).toBe(key);
    expect(RequestKey.from({ provider: 'a', externalId: 'b' })).toEqual(key);
    expect(invalid(() => RequestKey.from({ provider: 'a', externalId: '' })).field).toBe(
      'externalId',
    );
  });
});
