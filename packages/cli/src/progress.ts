/**
 * The live progress line on stderr: one line rewritten in place on a terminal, a plain line every second
 * otherwise (logs, CI), and nothing at all when quiet (`--json`).
 */
import type { OutStream } from './CliError.js';

export interface ProgressLine {
  /** Replaces the live line. */
  update(text: string): void;
  /** Prints a line that stays (above the live line on a terminal). */
  note(text: string): void;
  /** Removes the live line. */
  clear(): void;
}

export function createProgressLine(stream: OutStream, quiet: boolean): ProgressLine {
  if (quiet) return { update: () => undefined, note: () => undefined, clear: () => undefined };
  if (stream.isTTY) {
    let shown = false;
    const erase = (): void => {
      if (shown) stream.write('\r\x1b[2K');
      shown = false;
    };
    return {
      update(text) {
        const width = Math.max(20, (stream.columns ?? 80) - 1);
        erase();
        stream.write(text.length > width ? `${text.slice(0, width - 1)}…` : text);
        shown = true;
      },
      note(text) {
        erase();
        stream.write(`${text}\n`);
      },
      clear: erase,
    };
  }
  let last = 0;
  let lastText = '';
  return {
    update(text) {
      const now = Date.now();
      if (now - last < 1_000 || text === lastText) return;
      last = now;
      lastText = text;
      stream.write(`${text}\n`);
    },
    note(text) {
      stream.write(`${text}\n`);
    },
    clear: () => undefined,
  };
}
