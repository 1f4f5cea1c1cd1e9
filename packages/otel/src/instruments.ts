/** The four metric instruments, created from a fixed meter provider or following the global one. */
import { metrics, type Counter, type Histogram, type MeterProvider } from '@opentelemetry/api';
import { DURATION_BUCKETS, METRIC_NAMES } from './attributes.js';
import { PACKAGE_NAME, PACKAGE_VERSION } from './version.js';

interface Set {
  readonly waitDuration: Histogram;
  readonly holdDuration: Histogram;
  readonly renewals: Counter;
  readonly lost: Counter;
}

function create(provider: MeterProvider): Set {
  const meter = provider.getMeter(PACKAGE_NAME, PACKAGE_VERSION);
  const advice = { explicitBucketBoundaries: [...DURATION_BUCKETS] };
  return {
    waitDuration: meter.createHistogram(METRIC_NAMES.waitDuration, { unit: 's', description: 'Time from an acquire call (lock, tryLock, semaphore acquire, latch await) to its outcome', advice }),
    holdDuration: meter.createHistogram(METRIC_NAMES.holdDuration, { unit: 's', description: "Time from a lock owner's first acquisition to its final unlock", advice }),
    renewals: meter.createCounter(METRIC_NAMES.renewals, { unit: '{renewal}', description: 'Watchdog renewals of held locks' }),
    lost: meter.createCounter(METRIC_NAMES.lost, { unit: '{lock}', description: 'Locks the client found lost (expired or deleted while held)' }),
  };
}

/**
 * `@opentelemetry/api`'s global meter provider is not a proxy (unlike the tracer provider): a meter taken
 * before the SDK sets it stays a no-op. So without a provider of its own this follows the global one,
 * re-creating the instruments when it changes.
 */
export class Instruments {
  #fixed: MeterProvider | undefined;
  #from: MeterProvider | undefined;
  #set: Set | undefined;

  constructor(provider?: MeterProvider) {
    this.#fixed = provider;
  }

  use(provider: MeterProvider): void {
    this.#fixed = provider;
  }

  get(): Set {
    const provider = this.#fixed ?? metrics.getMeterProvider();
    if (this.#set === undefined || provider !== this.#from) {
      this.#from = provider;
      this.#set = create(provider);
    }
    return this.#set;
  }
}
