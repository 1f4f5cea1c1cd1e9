/**
 * Colour for the verdicts an operator looks at first, only on a terminal and never when `NO_COLOR` is set
 * (https://no-color.org: any non-empty value).
 */
import type { OutStream } from './CliError.js';

export type Paint = (text: string, colour: 'red' | 'green' | 'yellow') => string;

const CODES = { red: '1;31', green: '32', yellow: '33' } as const;

/** Leaves text as it is. */
export const noPaint: Paint = (text) => text;

/** Wraps text in an ANSI colour and a reset. */
export const ansiPaint: Paint = (text, colour) => `\u001b[${CODES[colour]}m${text}\u001b[0m`;

/** {@link ansiPaint} when `stream` is a terminal and `NO_COLOR` is unset or empty, else {@link noPaint}. */
export function paintFor(stream: OutStream, env: NodeJS.ProcessEnv = process.env): Paint {
  return stream.isTTY === true && (env.NO_COLOR ?? '') === '' ? ansiPaint : noPaint;
}
