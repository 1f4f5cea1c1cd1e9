/**
 * Argument parsing on `node:util` parseArgs, with its errors turned into {@link UsageError}s and
 * integer options validated eagerly.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './CliError.js';

/** parseArgs (strict unless the config says otherwise); a bad flag becomes a UsageError with parseArgs' own message. */
export function parse<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs<T>({ strict: true, ...config });
  } catch (error) {
    if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) {
      throw new UsageError(error.message.replace(/\. To specify a positional argument.*$/s, ''));
    }
    throw error;
  }
}

/** An integer option in `[min, max]`, or `fallback` when absent. */
export function intOption(value: string | undefined, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value.trim())) throw new UsageError(`--${name} must be an integer, got '${value}'`);
  const n = Number(value);
  if (n < min || n > max) throw new UsageError(`--${name} must be between ${min} and ${max}, got ${n}`);
  return n;
}
