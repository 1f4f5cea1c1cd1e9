/**
 * Strategy 7: this library's RLock with half the buyers in Java Redisson, on the same lock name and the
 * same stock. Runs only when the Java peer of the interop tests can be had (`javaPeer.ts`).
 */
import { JavaBuyerProcess } from './javaBuyerProcess.js';
import type { JavaSide } from './javaPeer.js';
import { nodeParticipants } from './runStrategy.js';
import { plural, WORK_MS, type Strategy } from './strategies.js';

/** Id and row label of strategy 7, known also when it cannot run. */
export const RLOCK_JAVA = { id: 'rlock-java', title: '7. RLock, half in Java Redisson' } as const;

// Label prefix of the Java participant (the explanation tells the two sides apart by it).
const JAVA_LABEL = 'Java Redisson';

/** Strategy 7, with Java buyers from `java`. */
export function rlockJavaStrategy(java: JavaSide): Strategy {
  return {
    ...RLOCK_JAVA,
    buyer: 'rlock',
    expected: 'correct',
    tuning: { workMs: WORK_MS, leaseMs: 0, pauseMs: 0, watchdogMs: 1_000 },
    injections: [],
    async participants(settings, spec, status) {
      // Java gets the smaller half, so an odd count still leaves our side at least one buyer.
      const javaBuyers = Math.floor(spec.buyers / 2);
      status(`starting a JVM with Java Redisson ${java.version}…`);
      // Both runtimes get the same lockWatchdogTimeout.
      const peer = await java.start(settings.redisUrl, spec.watchdogMs);
      try {
        const node = nodeParticipants(settings, { ...spec, buyers: spec.buyers - javaBuyers });
        return [...node, { process: new JavaBuyerProcess(peer, `${JAVA_LABEL} ${peer.redissonVersion || java.version}`), spec: { ...spec, buyers: javaBuyers } }];
      } catch (error) {
        await peer.kill();
        throw error;
      }
    },
    explain(r) {
      const javaSide = r.soldBy.filter((p) => p.label.startsWith(JAVA_LABEL));
      const nodeSide = r.soldBy.filter((p) => !p.label.startsWith(JAVA_LABEL));
      const sum = (side: typeof r.soldBy, key: 'buyers' | 'sold'): number => side.reduce((n, p) => n + p[key], 0);
      return `In one JVM, ${javaSide[0]?.label ?? JAVA_LABEL} ran ${plural(sum(javaSide, 'buyers'), 'buyer')}, each on its own thread calling RLock.lock() and unlock(); this library's RLock ran the other ${sum(nodeSide, 'buyers')} in ${nodeSide.length} Node process${nodeSide.length === 1 ? '' : 'es'}, on the same lock name. Java sold ${sum(javaSide, 'sold')}, Node ${sum(nodeSide, 'sold')}, and no unit twice: both keep the lock in the same hash (one field per owner, <client id>:<thread id>), renew it with their watchdogs and announce unlocks on the same channel, so either side's unlock wakes the other's waiters. The split is not a fault: neither RLock is fair, a freed lock goes to whichever attempt reaches Redis first, and a Java buyer's attempts start further away (each purchase is a request through the peer's stdin, and a woken Redisson waiter hands over between threads before its retry leaves the JVM), so on a busy machine Java wins fewer turns. Ops/s and p99 count both sides.`;
    },
  };
}
