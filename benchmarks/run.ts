/**
 * `npm run bench [-- --quick] [--out DIR] [--only a,b] [--scenarios a,b] [--java] [--topology sentinel,cluster|all]`: lock latency and throughput of redisson-ts
 * against a raw round trip, the peer libraries and Java Redisson. Starts its own redis-server unless
 * REDIS_URL is set; writes a markdown report (also printed), JSON and an SVG chart to DIR
 * (default benchmarks/results/). See benchmarks/README.md.
 */
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { RedisServerProcess } from '../packages/cli/src/RedisServerProcess.js';
import { IMPLEMENTATION_BY_NAME, IMPLEMENTATIONS, type ImplName } from './adapters/index.js';
import { javaUnavailableReason } from './adapters/javaRedisson.js';
import type { BenchContext } from './context.js';
import { describeEnvironment } from './env.js';
import { Progress } from './progress.js';
import { writeReport, type BenchResults } from './report.js';
import { WorkerProcess } from './rpc.js';
import { runClients, runContention, runUsers } from './scenarios/contention.js';
import { runFamily } from './scenarios/family.js';
import { runHandoff } from './scenarios/handoff.js';
import { runManyLocks } from './scenarios/manyLocks.js';
import { runManyWaiters } from './scenarios/manyWaiters.js';
import { runUncontended } from './scenarios/uncontended.js';
import { runTopology, TOPOLOGIES, type Topology } from './scenarios/topology.js';
import { runJavaInJvm, runJavaInJvmContention, runJavaInJvmHandoff } from './scenarios/javaInJvm.js';
import { updateReadme } from './readmeSection.js';
import { buildLibrary } from './library.js';

const defaultOut = fileURLToPath(new URL('./results/', import.meta.url));

const firstLine = (error: unknown): string => (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      out: { type: 'string', default: defaultOut },
      only: { type: 'string' },
      java: { type: 'boolean' },
      scenarios: { type: 'string' },
      topology: { type: 'string' },
    },
  });
  const quick = values.quick;
  // Two JVM start-ups do not fit in a quick run's minute; --java brings them back.
  const withJava = values.java ?? !quick;
  const wanted = values.only ? values.only.split(',').map((s) => s.trim()) : [...IMPLEMENTATIONS];
  for (const name of wanted) {
    if (!(IMPLEMENTATIONS as readonly string[]).includes(name)) throw new Error(`--only: unknown implementation ${name} (known: ${IMPLEMENTATIONS.join(', ')})`);
  }
  const SCENARIOS = ['uncontended', 'handoff', 'contention', 'many-locks', 'many-waiters', 'family', 'clients', 'users'];
  const scenarios = values.scenarios ? values.scenarios.split(',').map((s) => s.trim()) : SCENARIOS;
  for (const name of scenarios) {
    if (!SCENARIOS.includes(name)) throw new Error(`--scenarios: unknown scenario ${name} (known: ${SCENARIOS.join(', ')})`);
  }
  // --topology sentinel,cluster (or all): redisson-ts on those deployments beside a single server.
  const topologies = values.topology === undefined ? [] : values.topology === 'all' ? [...TOPOLOGIES] : values.topology.split(',').map((t) => t.trim());
  for (const t of topologies) {
    if (!(TOPOLOGIES as readonly string[]).includes(t)) throw new Error(`--topology: unknown ${t} (known: ${TOPOLOGIES.join(', ')}, all)`);
  }
  const progress = new Progress();
  const command = `npm run bench${quick ? ' -- --quick' : ''}`;
  // redisson-ts is measured from its build, as users get it (see library.ts).
  progress.update('building redisson-ts (dist/)');
  buildLibrary();

  let server: RedisServerProcess | null = null;
  let url = process.env['REDIS_URL'];
  let redisSource = 'REDIS_URL';
  if (!url) {
    progress.update('starting redis-server');
    server = await RedisServerProcess.start();
    url = server.url;
    redisSource = 'throwaway redis-server started by the benchmark';
  }
  const admin = new Redis(url);
  const workers: WorkerProcess[] = [];
  try {
    const env = await describeEnvironment(admin, redisSource, command);
    progress.update('starting worker processes');
    workers.push(await WorkerProcess.start('A'), await WorkerProcess.start('B'));

    const skipped: Partial<Record<ImplName, string>> = {};
    const impls: ImplName[] = [];
    for (const impl of IMPLEMENTATIONS) {
      if (!wanted.includes(impl)) {
        skipped[impl] = 'not selected with --only';
        continue;
      }
      if (impl === 'java-redisson') {
        if (!withJava) {
          skipped[impl] = 'skipped in --quick (JVM start-up); add --java, or run the full benchmark';
          continue;
        }
        const why = javaUnavailableReason();
        if (why) {
          skipped[impl] = `Java/Maven unavailable: ${why}`;
          continue;
        }
      }
      progress.update(`opening ${impl} in both workers`);
      try {
        await Promise.all(workers.map((w) => w.call('open', { impl, url })));
        impls.push(impl);
      } catch (error) {
        skipped[impl] = `could not start: ${firstLine(error)}`;
      }
    }

    const ctx: BenchContext = { url, quick, admin, workers: [workers[0] as WorkerProcess, workers[1] as WorkerProcess], impls, skipped, progress, failures: [] };
    const results: BenchResults = {
      env,
      quick,
      skipped,
      failures: ctx.failures,
      notMeasured: {
        'many waiters': {
          'java-redisson': 'the peer runs each blocking lock() on its own JVM thread: 10 000 waiters would be 10 000 threads',
        },
      },
    };
    const step = async <T>(name: string, run: (ctx: BenchContext) => Promise<T>): Promise<T | undefined> => {
      const scenario = name.replace(' ', '-');
      if (!scenarios.includes(scenario)) return undefined;
      // An implementation limited to some scenarios (the bare-protocol control) sits the others out.
      const measured = impls.filter((i) => IMPLEMENTATION_BY_NAME[i].scenarios?.includes(scenario) ?? true);
      try {
        return await run({ ...ctx, impls: measured });
      } catch (error) {
        ctx.failures.push(`${name}: ${firstLine(error)}`);
        return undefined;
      }
    };
    // A Java-in-its-JVM step after the Node scenario it mirrors, when Java runs; a failure is reported, not fatal.
    const inJvm = async <T>(label: string, run: (ctx: BenchContext) => Promise<T>, keep: (result: T) => void): Promise<void> => {
      if (!impls.includes('java-redisson')) return;
      try {
        keep(await run(ctx));
      } catch (error) {
        ctx.failures.push(`${label}: ${firstLine(error)}`);
      }
    };
    const started = performance.now();
    const u = await step('uncontended', (scoped) => runUncontended(scoped));
    if (u) results.uncontended = u;
    // Java's pair timed inside its JVM, beside its own round trip (no peer pipe in the numbers).
    if (u) await inJvm('java in-JVM', runJavaInJvm, (r) => (results.javaInJvm = r));
    const h = await step('handoff', (scoped) => runHandoff(scoped));
    if (h) results.handoff = h;
    // The same handoff with holder and waiter threads in two JVMs (and in one), timed inside them.
    if (h) await inJvm('java in-JVM handoff', runJavaInJvmHandoff, (r) => (results.javaInJvmHandoff = r));
    const c = await step('contention', (scoped) => runContention(scoped));
    if (c) results.contention = c;
    // The contention loop as Java threads in two JVMs, without the peer pipe per call.
    if (c) await inJvm('java in-JVM contention', runJavaInJvmContention, (r) => (results.javaInJvmContention = r));
    const l = await step('many locks', (scoped) => runManyLocks(scoped));
    if (l) results.manyLocks = l;
    const w = await step('many waiters', (scoped) => runManyWaiters(scoped, scoped.impls.filter((i) => i !== 'java-redisson')));
    if (w) results.manyWaiters = w;
    const f = await step('family', (scoped) => runFamily(scoped));
    if (f) results.family = f;
    const n = await step('clients', (scoped) => runClients(scoped));
    if (n) results.clients = n;
    const us = await step('users', (scoped) => runUsers(scoped));
    if (us) results.users = us;
    if (topologies.length > 0) {
      try {
        results.topology = await runTopology(ctx, topologies as Topology[]);
      } catch (error) {
        ctx.failures.push(`topology: ${firstLine(error)}`);
      }
    }
    progress.done();
    env.loadAverage.end = Number((loadavg()[0] ?? NaN).toFixed(2));

    const { markdown, files } = writeReport(results, values.out, quick ? 'bench-quick' : 'bench-full');
    process.stdout.write(`${markdown}\n`);
    process.stdout.write(`Took ${Math.round((performance.now() - started) / 1000)} s. Wrote ${files.join(', ')}\n`);
    // A full run into the default folder is "the latest": docs/guides/benchmarks.md shows it.
    if (!quick && values.out === defaultOut && updateReadme(markdown)) process.stdout.write('Updated the benchmark section of docs/guides/benchmarks.md\n');
  } finally {
    progress.done();
    await Promise.allSettled(workers.map((w) => w.stop()));
    admin.disconnect();
    await server?.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`\nbench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
