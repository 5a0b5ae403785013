/** The keys a snippet's comments promise, for the tests that hold them against the presets. */
import { readRegion } from './check-docs';

/** `{ requestName: 'key' }` from `source`'s region `region`, its `preset.key(requestName); // 'key'` lines. */
export function commentedKeys(source: string, region: string): Record<string, string> {
  const keys: Record<string, string> = {};
  for (const match of readRegion(source, region).matchAll(
    /preset\.key\((\w+)\);\s*\/\/ '([^']+)'/g,
  ))
    keys[match[1]!] = match[2]!;
  return keys;
}
