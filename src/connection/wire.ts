/** Script arguments on the wire, whatever the driver. */
import { ArgumentRangeError } from '../errors.js';

/** Java's `Long.toString` for the values we send: no fraction, no exponent. */
export function integerString(n: number): string {
  if (!Number.isSafeInteger(n)) throw new ArgumentRangeError(`script argument must be a safe integer, got ${n}`);
  return String(n);
}
