/** A one-line progress indicator on stderr: rewritten in place on a terminal, one line per step otherwise. */
export class Progress {
  readonly #start = performance.now();
  readonly #tty = process.stderr.isTTY;
  #last = '';

  update(text: string): void {
    const secs = Math.round((performance.now() - this.#start) / 1000);
    const line = `[${String(Math.floor(secs / 60)).padStart(2, '0')}:${String(secs % 60).padStart(2, '0')}] ${text}`;
    if (this.#tty) {
      const cols = process.stderr.columns || 100;
      process.stderr.write(`\r\u001b[2K${line.slice(0, cols - 1)}`);
    } else if (text !== this.#last) {
      process.stderr.write(`${line}\n`);
    }
    this.#last = text;
  }

  done(): void {
    if (this.#tty) process.stderr.write('\r\u001b[2K');
  }
}
