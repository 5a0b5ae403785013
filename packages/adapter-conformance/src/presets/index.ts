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

/** The presets that deliver one event per request, by family (how the provider authenticates). */
const families: readonly (readonly PresetFixture[])[] = [
  timestampedFixtures,
  bodySignedFixtures,
  credentialFixtures,
  keySignedFixtures,
  handshakeFixtures,
  urlSignedFixtures,
  fieldSignedFixtures,
];

/** Every preset that delivers one event per request. */
export const presetFixtures: readonly PresetFixture[] = families.flat();

/**
 * The presets an entry registered with `presets: 'sample'` runs (`AdapterEntry.presets`): the
 * first of each family, every preset that signs the URL, and every one answering a challenge GET.
 * What such an entry changes for a preset (how the raw body, the headers, the URL and its query
 * reach it) is the same for every preset of a family, except where the URL or a query is read.
 */
export const samplePresets: ReadonlySet<string> = new Set(
  [
    ...families.flatMap((family) => family.slice(0, 1)),
    ...urlSignedFixtures,
    ...presetFixtures.filter((fixture) => fixture.challenge),
  ].map((fixture) => fixture.name),
);
