/** Maps `LockWaitTimeoutError` to HTTP 409 Conflict, on Express and Fastify alike. */
import { Catch, HttpStatus, Inject, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { LockWaitTimeoutError } from './errors.js';

/**
 * Register it globally: `app.useGlobalFilters(new LockWaitTimeoutFilter(app.get(HttpAdapterHost)))`, or
 * `{ provide: APP_FILTER, useClass: LockWaitTimeoutFilter }` in a module's providers.
 */
@Catch(LockWaitTimeoutError)
export class LockWaitTimeoutFilter implements ExceptionFilter<LockWaitTimeoutError> {
  constructor(@Inject(HttpAdapterHost) private readonly adapterHost: HttpAdapterHost) {}

  catch(error: LockWaitTimeoutError, host: ArgumentsHost): void {
    const body = { statusCode: HttpStatus.CONFLICT, error: 'Conflict', message: error.message, lockName: error.lockName };
    this.adapterHost.httpAdapter.reply(host.switchToHttp().getResponse(), body, HttpStatus.CONFLICT);
  }
}
