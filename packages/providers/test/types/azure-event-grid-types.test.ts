/**
 * The Azure Event Grid entry types each system event's `data` with `@azure/eventgrid`'s model,
 * except where that model names a field otherwise than the body does: the SDK's serializer
 * mappers rename those fields (Key Vault's `Id` is its model's `id`, a resource notification's
 * `resourceInfo` its `resourceDetails`), but its `EventGridDeserializer` leaves `data` as parsed,
 * and so does the preset. The entry lists those events (`AzureEventGridRenamedEventTypes`, their
 * data `unknown`); this test holds the list to the mappers of the pinned SDK, so an SDK that
 * renames more, or fewer, fails here until the list follows.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { KnownSystemEventTypes } from '@azure/eventgrid';
import type { AzureEventGridRenamedEventTypes } from '../../src/types/azure-event-grid';

/** `true` only when A and B are the same type. */
type Equal<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const same = <A, B>(proof: Equal<A, B>) => proof;
// Every event the entry lists is one the SDK names.
same<Exclude<AzureEventGridRenamedEventTypes, KnownSystemEventTypes>, never>(true);

interface MapperType {
  readonly className?: string;
  readonly element?: { readonly type: MapperType };
  readonly value?: { readonly type: MapperType };
  readonly modelProperties?: Record<string, { serializedName?: string; type: MapperType }>;
}

const sdk = dirname(require.resolve('@azure/eventgrid/package.json'));
const commonjs = join(sdk, 'dist', 'commonjs');
const mappers = require(join(commonjs, 'generated', 'models', 'mappers.js')) as Record<
  string,
  { type?: MapperType }
>;
const models = new Map(
  Object.values(mappers).flatMap((mapper) =>
    mapper?.type?.className ? [[mapper.type.className, mapper.type] as const] : [],
  ),
);

/** Each field of a model, or of a model it holds, that its mapper reads from another name. */
function renamedFields(className: string, seen = new Set<string>()): string[] {
  const model = models.get(className);
  if (model === undefined || seen.has(className)) return [];
  seen.add(className);
  const nested = (type: MapperType | undefined): string[] =>
    type === undefined
      ? []
      : [
          ...(type.className ? renamedFields(type.className, seen) : []),
          ...nested(type.element?.type),
          ...nested(type.value?.type),
        ];
  return Object.entries(model.modelProperties ?? {}).flatMap(([field, property]) => [
    ...(property.serializedName !== undefined &&
    property.serializedName.replace(/\\/g, '') !== field
      ? [`${className}.${field}`]
      : []),
    ...nested(property.type),
  ]);
}

/** The SDK's system events, each to its data model's name (`SystemEventNameToEventData`). */
const systemEvents = [
  ...readFileSync(join(commonjs, 'predicates.d.ts'), 'utf8').matchAll(/^\s*"([^"]+)": (\w+);/gm),
].map((match) => ({ name: match[1]!, model: match[2]! }));

/** The names the entry lists in `AzureEventGridRenamedEventTypes`. */
const listed = (() => {
  const source = readFileSync(join(__dirname, '../../src/types/azure-event-grid.ts'), 'utf8');
  const union = /export type AzureEventGridRenamedEventTypes =([^;]+);/.exec(source)![1]!;
  return [...union.matchAll(/'([^']+)'/g)].map((match) => match[1]!).sort();
})();

describe('the Azure Event Grid entry and the data models of @azure/eventgrid', () => {
  it('reads the SDK: its system events, each with a data model it maps', () => {
    expect(systemEvents.length).toBeGreaterThan(200);
    expect(systemEvents.filter((event) => !models.has(event.model))).toEqual([]);
    expect(renamedFields('KeyVaultSecretNearExpiryEventData')).toContain(
      'KeyVaultSecretNearExpiryEventData.vaultName',
    );
    expect(renamedFields('StorageBlobCreatedEventData')).toEqual([]);
  });

  it('lists exactly the events whose data model renames a field of the body', () => {
    const renamed = systemEvents
      .filter((event) => renamedFields(event.model).length > 0)
      .map((event) => event.name)
      .sort();
    expect(listed).toEqual(renamed);
  });
});
