/**
 * @module Discord's own interaction types for the Discord preset, from `discord-api-types` (an
 * optional peer): `providers.discord<DiscordEvents>({ publicKey })`. Types only: nothing loads at
 * run time.
 */
import type { APIInteraction } from 'discord-api-types/v10';
import type { DISCORD_INTERACTION_TYPES } from '../discord';

/** The interactions of one `type` number. */
type OfType<Type> = Extract<APIInteraction, { readonly type: Type }>;

/** Each interaction type's name (`eventType(request)`: `APPLICATION_COMMAND`) to its interactions. */
export type DiscordEvents = {
  [Type in keyof typeof DISCORD_INTERACTION_TYPES as (typeof DISCORD_INTERACTION_TYPES)[Type]]: OfType<Type>;
};

/** Every interaction, as `discord-api-types` (v10) types it. */
export type DiscordEvent = APIInteraction;
