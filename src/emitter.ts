/**
 * mitt, typed for NodeNext: its ESM build default-exports the factory, but its single `.d.ts` is read as
 * CommonJS, which puts the factory under `.default`. This is the one place that bridges the two.
 */
import mittModule from 'mitt';
import type { Emitter, EventType } from 'mitt';

type MittFactory = <Events extends Record<EventType, unknown>>() => Emitter<Events>;

const factory: MittFactory =
  typeof mittModule === 'function' ? (mittModule) : (mittModule).default;

/** Creates a typed in-process event emitter. */
export function createEmitter<Events extends Record<EventType, unknown>>(): Emitter<Events> {
  return factory<Events>();
}

export type { Emitter };
