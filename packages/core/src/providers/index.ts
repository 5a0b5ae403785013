/** @module Provider presets: one factory per provider. Re-exports only. */
export { payme, type PaymeOptions } from './payme';
export { click, type ClickOptions } from './click';
export { uzum, type UzumOptions } from './uzum';
