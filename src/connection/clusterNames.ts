/**
 * Redis Cluster's one-slot rule for a primitive's names: every key and channel one primitive uses for a name
 * (see `usedNames`) must hash to one slot, or its scripts fail with CROSSSLOT after being sent. The client
 * checks it in `get…(name)` on a cluster and refuses such a name with {@link CrossSlotNameError}.
 */
import { hashTag, headSlot, keySlot } from './slots.js';
import { mapName } from '../config.js';
import { CrossSlotNameError, type PlacedName } from '../errors.js';
import { usedNames, type NameMapper, type NamedPrimitive } from '../keys.js';

/** Where each name of `primitive` named `rawName` lands, with ioredis `keyPrefix` in front of each. */
export function placeNames(primitive: NamedPrimitive, rawName: string, keyPrefix: string): readonly PlacedName[] {
  return usedNames(primitive, rawName).map((used) => {
    const name = keyPrefix + used.name;
    const tag = hashTag(name);
    const slot = used.rest === undefined ? keySlot(name) : headSlot(name);
    return used.rest === undefined ? { type: used.type, role: used.role, name, tag, slot } : { type: used.type, role: used.role, name, rest: used.rest, tag, slot };
  });
}

/** True when every name has a fixed slot and all slots are the same. */
export function shareOneSlot(names: readonly PlacedName[]): boolean {
  const first = names[0]?.slot;
  return first !== undefined && first !== null && names.every((n) => n.slot === first);
}

/**
 * Throws {@link CrossSlotNameError} unless every key and channel of `primitive` for `name` (mapped by
 * `mapper`, prefixed with `keyPrefix`) shares one slot. Sends nothing.
 * @param method the client method, for the message (`getCountDownLatch`).
 */
export function requireOneSlot(method: string, primitive: NamedPrimitive, name: string, mapper: NameMapper, keyPrefix: string): void {
  const names = placeNames(primitive, mapName(mapper, name), keyPrefix);
  if (shareOneSlot(names)) return;
  throw new CrossSlotNameError(method, name, primitive, names, suggestName(primitive, name, mapper, keyPrefix), keyPrefix);
}

/**
 * A name close to `name` that fits, or null: its text without braces, wrapped in one hash tag (fits every
 * primitive but a CountDownLatch, whose channel adds braces of its own), else without any brace.
 */
function suggestName(primitive: NamedPrimitive, name: string, mapper: NameMapper, keyPrefix: string): string | null {
  const bare = name.replace(/[{}]/g, '');
  if (bare === '') return null;
  for (const candidate of [`{${bare}}`, bare]) {
    try {
      if (shareOneSlot(placeNames(primitive, mapName(mapper, candidate), keyPrefix))) return candidate;
    } catch {
      // a mapper that refuses the candidate: try the next one
    }
  }
  return null;
}
