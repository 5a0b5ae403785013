/**
 * @module Microsoft Graph's own change notification types for the Microsoft Graph preset, from
 * `@microsoft/microsoft-graph-types` (an optional peer):
 * `providers.microsoftGraph<MicrosoftGraphEvents>({ clientState })`. Types only: nothing loads at
 * run time.
 */
import type {
  ChangeNotification,
  ChangeNotificationCollection,
  ChangeType,
  LifecycleEventType,
} from '@microsoft/microsoft-graph-types';

/**
 * What Graph sends in a notification's `resourceData`, which these types leave an empty
 * `ResourceData`: the resource's `id` and its OData annotations.
 */
interface ResourceDataFields {
  readonly resourceData?: {
    readonly id?: string;
    readonly '@odata.type'?: string;
    readonly '@odata.id'?: string;
    readonly '@odata.etag'?: string;
  } | null;
}

/** One notification of `value[]`: Graph's `ChangeNotification`, its `resourceData` fields named. */
export type MicrosoftGraphNotification = ChangeNotification & ResourceDataFields;

/**
 * Each item name, as `preset.itemType(item)` reads it, to its notification: a change type
 * (`created`, `updated`, `deleted`) to a notification with that `changeType`; a lifecycle event
 * (`missed`, `subscriptionRemoved`, `reauthorizationRequired`) to one with that `lifecycleEvent`.
 */
export type MicrosoftGraphEvents = {
  [Name in ChangeType | LifecycleEventType]: MicrosoftGraphNotification &
    (Name extends ChangeType ? { readonly changeType: Name } : { readonly lifecycleEvent: Name });
};

/** A delivery's body: Graph's `ChangeNotificationCollection` (`value[]`, `validationTokens`). */
export type MicrosoftGraphNotificationCollection = ChangeNotificationCollection;
