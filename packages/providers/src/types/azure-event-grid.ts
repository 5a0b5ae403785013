/**
 * @module Azure Event Grid's own system event types for the Azure Event Grid preset, from
 * `@azure/eventgrid` (an optional peer): `providers.azureEventGrid<AzureEventGridEvents>(…)` for a
 * subscription in the Event Grid schema, `<AzureEventGridCloudEvents>` for one in the CloudEvents
 * 1.0 schema. Types only: nothing loads at run time.
 *
 * The events are typed as the body holds them, which is not quite as the SDK's
 * `EventGridDeserializer` returns them: the SDK's `eventTime` and `time` are `Date`s it parses, the
 * body's are ISO 8601 strings; a CloudEvent's `specversion` and extension attributes are fields of
 * the body, not the SDK's `extensionAttributes`. And the SDK's models of some system events' data
 * rename the fields the body spells otherwise (Key Vault's `Id`, `VaultName`…; a resource
 * notification's `resourceInfo`); neither the SDK's deserializer nor this preset renames them, so
 * those events ({@link AzureEventGridRenamedEventTypes}) are named here with their `data` left
 * `unknown`.
 */
import type {
  CloudEvent,
  EventGridEvent,
  KnownSystemEventTypes,
  SystemEventNameToEventData,
} from '@azure/eventgrid';

/**
 * The system events whose data model in `@azure/eventgrid` names a field otherwise than the body
 * does (the SDK's serializer mappers rename it; its deserializer does not): typed here with
 * `data: unknown`. `test/types/azure-event-grid-types.test.ts` holds this list to the SDK's mappers.
 */
export type AzureEventGridRenamedEventTypes =
  | 'Microsoft.ApiManagement.GatewayTokenExpired'
  | 'Microsoft.ApiManagement.GatewayTokenNearExpiry'
  | 'Microsoft.Communication.AdvancedMessageDeliveryStatusUpdated'
  | 'Microsoft.Communication.AdvancedMessageReceived'
  | 'Microsoft.Communication.CallEnded'
  | 'Microsoft.Communication.EmailEngagementTrackingReportReceived'
  | 'Microsoft.Communication.IncomingCall'
  | 'Microsoft.Communication.RouterJobClassified'
  | 'Microsoft.Communication.RouterJobQueued'
  | 'Microsoft.Communication.RouterJobReceived'
  | 'Microsoft.Communication.RouterJobSchedulingFailed'
  | 'Microsoft.Communication.RouterJobWaitingForActivation'
  | 'Microsoft.Communication.RouterJobWorkerSelectorsExpire'
  | 'Microsoft.KeyVault.CertificateExpired'
  | 'Microsoft.KeyVault.CertificateNearExpiry'
  | 'Microsoft.KeyVault.CertificateNewVersionCreated'
  | 'Microsoft.KeyVault.KeyExpired'
  | 'Microsoft.KeyVault.KeyNearExpiry'
  | 'Microsoft.KeyVault.KeyNewVersionCreated'
  | 'Microsoft.KeyVault.SecretExpired'
  | 'Microsoft.KeyVault.SecretNearExpiry'
  | 'Microsoft.KeyVault.SecretNewVersionCreated'
  | 'Microsoft.KeyVault.VaultAccessPolicyChanged'
  | 'Microsoft.Media.JobCanceled'
  | 'Microsoft.Media.JobErrored'
  | 'Microsoft.Media.JobFinished'
  | 'Microsoft.Media.JobOutputCanceled'
  | 'Microsoft.Media.JobOutputCanceling'
  | 'Microsoft.Media.JobOutputErrored'
  | 'Microsoft.Media.JobOutputFinished'
  | 'Microsoft.Media.JobOutputProcessing'
  | 'Microsoft.Media.JobOutputScheduled'
  | 'Microsoft.Media.JobOutputStateChange'
  | 'Microsoft.ResourceNotifications.ContainerServiceEventResources.ScheduledEventEmitted'
  | 'Microsoft.ResourceNotifications.HealthResources.AvailabilityStatusChanged'
  | 'Microsoft.ResourceNotifications.HealthResources.ResourceAnnotated'
  | 'Microsoft.ResourceNotifications.Resources.CreatedOrUpdated'
  | 'Microsoft.ResourceNotifications.Resources.Deleted'
  | 'Microsoft.Storage.StorageTaskAssignmentCompleted'
  | 'Microsoft.Storage.StorageTaskAssignmentQueued'
  | 'Microsoft.Web.AppServicePlanUpdated';

/** A system event's data as the body holds it: the SDK's model, or `unknown` where it renames fields. */
export type AzureEventGridData<Name extends KnownSystemEventTypes> =
  Name extends AzureEventGridRenamedEventTypes ? unknown : SystemEventNameToEventData[Name];

/** An event in the Event Grid schema as the body holds it: the SDK's `EventGridEvent`, `eventTime` a string. */
export type AzureEventGridEvent<Name extends string = string, Data = unknown> = Omit<
  EventGridEvent<Data>,
  'eventType' | 'eventTime'
> & { readonly eventType: Name; readonly eventTime: string };

/**
 * An event in the CloudEvents 1.0 schema as the body holds it: the SDK's `CloudEvent` with
 * `specversion`, `time` a string, and no `extensionAttributes` (extension attributes are fields of
 * the event, untyped).
 */
export type AzureEventGridCloudEvent<Name extends string = string, Data = unknown> = Omit<
  CloudEvent<Data>,
  'type' | 'time' | 'extensionAttributes'
> & { readonly type: Name; readonly specversion: string; readonly time?: string };

/** Each system event type (`Microsoft.Storage.BlobCreated`…) to its event in the Event Grid schema. */
export type AzureEventGridEvents = {
  [Name in KnownSystemEventTypes]: AzureEventGridEvent<Name, AzureEventGridData<Name>>;
};

/** Each system event type to its event in the CloudEvents 1.0 schema. */
export type AzureEventGridCloudEvents = {
  [Name in KnownSystemEventTypes]: AzureEventGridCloudEvent<Name, AzureEventGridData<Name>>;
};
