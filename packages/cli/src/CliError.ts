/**
 * Errors the CLI reports as one line and an exit code, never a stack trace.
 */

/** Exit codes: 0 ok, 1 runtime failure, 2 usage error (as `node:util` parseArgs users expect). */
export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** A failure with a message meant for the user: printed as `redisson-ts: <message>`. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT_FAILURE,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Bad arguments: printed with a pointer to `--help`, exit code 2. */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, EXIT_USAGE);
  }
}

/** The part of a stream the CLI uses: `process.stdout` fits, and so does a test's capture. */
export interface OutStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

/** Where the CLI writes; `process.stdout`/`process.stderr` unless a test captures them. */
export interface CliIo {
  readonly stdout: OutStream;
  readonly stderr: OutStream;
  /** Registers cleanup to run on Ctrl-C / SIGTERM; returns a function that unregisters it. */
  onInterrupt(cleanup: () => void | Promise<void>): () => void;
}
