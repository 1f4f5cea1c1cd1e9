/** Lock names from a method's arguments: `'order:{0.id}'` templates or a function. */

/** A template (`'order:{0.id}'`: `{<argument index>[.<property>…]}`) or a function of the arguments. */
export type LockNameSource = string | ((args: readonly unknown[]) => string);

const PLACEHOLDER = /\{(\d+)((?:\.[A-Za-z_$][\w$]*)*)\}/g;

/** Checks a template when the decorator is applied, so a typo fails at class definition, not per request. */
export function checkTemplate(source: LockNameSource, where: string): void {
  if (typeof source === 'function') return;
  if (typeof source !== 'string' || source.length === 0) throw new TypeError(`${where}: the lock name must be a non-empty string or a function of the arguments`);
  const rest = source.replace(PLACEHOLDER, '');
  if (rest.includes('{') || rest.includes('}')) {
    throw new TypeError(`${where}: bad placeholder in "${source}" (use {0}, {1.id}, {0.customer.id})`);
  }
}

/** The lock name for one call. */
export function lockNameOf(source: LockNameSource, args: readonly unknown[], where: string): string {
  if (typeof source === 'function') {
    const name = source(args);
    if (typeof name !== 'string' || name.length === 0) throw new TypeError(`${where}: the lock name function returned ${String(name)}, not a non-empty string`);
    return name;
  }
  return source.replace(PLACEHOLDER, (_match, index: string, path: string) => {
    let value: unknown = args[Number(index)];
    for (const key of path.split('.').slice(1)) {
      value = value === null || value === undefined ? undefined : (value as Record<string, unknown>)[key];
    }
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
    throw new TypeError(`${where}: {${index}${path}} of "${source}" is ${value === null ? 'null' : typeof value}, not a string or number`);
  });
}
