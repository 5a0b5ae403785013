/** @module docs/guides/raw-body.md: the canonical JSON behind the fallback fingerprint. Run by test/raw-body.test.ts. */
// #region canonical
import { canonicalJson } from '@webhook-idempotency/core/adapter';
// #endregion canonical

/** Two parses of the same payload, in another key order and spacing, give one text. */
export function canonicalExample(): string[] {
  // #region canonical
  canonicalJson(JSON.parse('{ "b": 1, "a": { "d": [2, 3], "c": null } }')); // '{"a":{"c":null,"d":[2,3]},"b":1}'
  canonicalJson(JSON.parse('{"a":{"c":null,"d":[2,3]},"b":1}')); // '{"a":{"c":null,"d":[2,3]},"b":1}'
  // #endregion canonical
  return [
    canonicalJson(JSON.parse('{ "b": 1, "a": { "d": [2, 3], "c": null } }')),
    canonicalJson(JSON.parse('{"a":{"c":null,"d":[2,3]},"b":1}')),
  ];
}
