/**
 * Java Redisson without the peer's pipe (issue 15): the uncontended lock+unlock pair timed inside the JVM
 * (`System.nanoTime` around each pair, on one Java thread), beside one round trip of Java's own (an `EXISTS`
 * through `RBucket`) timed the same way — so the Java row compares with ours as ratios to each side's own round
 * trip, without the JSON-over-stdin cost the worker rows pay per call.
 */
import { JavaPeer } from '../../test/interop/JavaPeer.js';
import { JAVA_REDISSON_VERSION } from '../adapters/javaRedisson.js';
import type { BenchContext } from '../context.js';
import { summarize, type Summary } from '../stats.js';

export interface JavaInJvmResult {
  readonly version: string;
  readonly pair: Summary;
  readonly roundTrip: Summary;
}

export async function runJavaInJvm(ctx: BenchContext): Promise<JavaInJvmResult> {
  ctx.progress.update('java in-JVM: starting the peer');
  const peer = await JavaPeer.start(JAVA_REDISSON_VERSION, { address: ctx.url });
  try {
    ctx.progress.update('java in-JVM: measuring');
    const reply = await peer.request('bench', { name: 'bench:java-in-jvm', n: ctx.quick ? 300 : 1_000 });
    const result = reply.result as { pairNanos: number[]; roundTripNanos: number[] };
    const micros = (nanos: number[]): number[] => nanos.map((x) => x / 1_000);
    return { version: JAVA_REDISSON_VERSION, pair: summarize(micros(result.pairNanos)), roundTrip: summarize(micros(result.roundTripNanos)) };
  } finally {
    await peer.shutdown();
  }
}
