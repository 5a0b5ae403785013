/**
 * @module Fixtures of the presets whose provider signs with a plain hash or over chosen fields
 * rather than an HMAC of the body: Cloudinary (SHA-1 of body + timestamp + API secret, a timestamp
 * the preset checks, its window narrowed here to five minutes; no delivery id, so the receipt is keyed on the body's digest).
 */
import { createHash } from 'node:crypto';
import type { PresetFixture } from './fixture';
import { secretFixtures } from './secret-rows';

const cloudinaryUpload = {
  notification_type: 'upload',
  public_id: 'conformance/cat',
  version: 1765022398,
};
const digest = (payload: object) =>
  createHash('sha256').update(JSON.stringify(payload)).digest('hex');

export const fieldSignedFixtures: readonly PresetFixture[] = [
  ...secretFixtures(
    {
      cloudinary: {
        id: `upload:${digest(cloudinaryUpload)}`,
        option: 'apiSecret',
        event: [cloudinaryUpload],
        // Its two hours narrowed, so that the suite's delivery of an hour ago is stale.
        preset: { toleranceSeconds: 300 },
        note: 'no delivery id: keyed on the body digest; a retry is stamped anew',
      },
    },
    true,
  ),
];
