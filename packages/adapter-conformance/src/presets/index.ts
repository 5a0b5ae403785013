/**
 * @module Every preset fixture of the HTTP suite, by how the provider authenticates: the ones
 * that deliver one event per request (every adapter and the inbox endpoint send them), and the
 * batched ones.
 */
import { bodySignedFixtures } from './body-signed';
import { credentialFixtures } from './credentials';
import { fieldSignedFixtures } from './field-signed';
import type { PresetFixture } from './fixture';
import { handshakeFixtures } from './handshakes';
import { keySignedFixtures } from './key-signed';
import { timestampedFixtures } from './timestamped';
import { urlSignedFixtures } from './url-signed';

export { batchFixtures } from './batches';
export {
  type BatchFixture,
  HOOK_URL,
  type PresetFixture,
  type PresetRequest,
  presetRequestOf,
  requestOf,
} from './fixture';

/** Every preset that delivers one event per request. */
export const presetFixtures: readonly PresetFixture[] = [
  ...timestampedFixtures,
  ...bodySignedFixtures,
  ...credentialFixtures,
  ...keySignedFixtures,
  ...handshakeFixtures,
  ...urlSignedFixtures,
  ...fieldSignedFixtures,
];
