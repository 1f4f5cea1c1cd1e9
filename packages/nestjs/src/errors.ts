/** The module's typed errors; subclasses of the library's `RedissonError`. */
import { RedissonError } from 'redisson-ts';

/**
 * A `@WithLock` method did not get its lock (or permit) within `waitTime`; the method did not run.
 * `LockWaitTimeoutFilter` maps it to HTTP 409 Conflict.
 */
export class LockWaitTimeoutError extends RedissonError {
  /** The lock (or semaphore) name the template produced. */
  readonly lockName: string;
  readonly waitTime: number;

  constructor(lockName: string, waitTime: number) {
    super(`could not acquire "${lockName}" within ${waitTime} ms (waitTime)`);
    this.lockName = lockName;
    this.waitTime = waitTime;
  }
}

/** A `@WithLock` method was called on an instance no `RedissonModule` client was bound to. */
export class RedissonClientNotBoundError extends RedissonError {
  constructor(className: string, method: string, client: string) {
    super(
      `${className}.${method}: @WithLock needs the Redisson client "${client}", but none was bound to this instance ` +
        `(import RedissonModule.forRoot({ name: '${client}', … }) in the application; request-scoped providers are not supported)`,
    );
  }
}
