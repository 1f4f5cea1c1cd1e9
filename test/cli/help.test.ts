/**
 * The CLI's help says what the CLI does (issue 26): the top-level help is generated from the command table, and
 * each claim in it is checked here against the thing it describes — the demo's strategy count and kinds against
 * the strategies the demo runs, `bench` offered only where its benchmarks exist, every listed command answering
 * its own `--help`. (The installed CLI, which has no benchmarks, is checked in test/package/consumers.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { benchmarkFile } from '../../packages/cli/src/benchCommand.js';
import { demoStrategyCount } from '../../packages/cli/src/demoCommand.js';
import { javaPeerFile } from '../../packages/cli/src/demo/javaPeer.js';
import { COMMANDS, helpText, main } from '../../packages/cli/src/main.js';
import { runMain } from './cliHarness.js';

/** The ids `demo --only` accepts, from its usage error: the strategies the demo knows. */
async function knownStrategies(): Promise<string[]> {
  const run = await runMain(main, ['demo', '--only', 'no-such-strategy']);
  expect(run.code).toBe(2);
  const known = /\(known: ([^)]+)\)/.exec(run.stderr)?.[1];
  expect(known).toBeDefined();
  return (known ?? '').split(', ');
}

describe('redisson-ts --help', () => {
  it('counts the strategies a plain demo runs, and names the Java and RedLock ones it has', async () => {
    const help = (await runMain(main, ['--help'])).stdout;
    const count = Number(/the oversell story: (\d+) ways/.exec(help)?.[1]);
    const known = await knownStrategies();
    expect(count).toBe(demoStrategyCount());
    expect(count).toBe(known.length);
    const demoHelp = (await runMain(main, ['demo', '--help'])).stdout;
    expect(/^Strategies: (.+)$/m.exec(demoHelp)?.[1]?.split(', ')).toEqual(known);
    // "one with half the buyers in Java Redisson", "two with RedLock".
    expect(help).toMatch(/one\s+with half the buyers in Java Redisson/);
    expect(known.filter((id) => id.endsWith('-java'))).toEqual(['rlock-java']);
    expect(help).toMatch(/two with RedLock/);
    expect(known.filter((id) => id.startsWith('redlock'))).toHaveLength(2);
  });

  it('lists each command it can run here, and each answers its own --help', async () => {
    const help = helpText();
    for (const [name, command] of Object.entries(COMMANDS)) {
      const listed = new RegExp(`^  ${name}\\b`, 'm').test(help);
      expect(listed, name).toBe(command.available?.() ?? true);
      const own = await runMain(main, [name, '--help']);
      expect(own.code).toBe(0);
      expect(own.stdout.startsWith(`Usage: redisson-ts ${name}`)).toBe(true);
    }
    // In this source checkout the benchmarks exist, so bench is offered.
    expect(benchmarkFile()).toBeDefined();
    expect(help).toMatch(/^ {2}bench \[args\]/m);
  });

  it('demo --help: the Java strategy needs java and mvn, not a source checkout (the peer ships with the CLI)', async () => {
    const demoHelp = (await runMain(main, ['demo', '--help'])).stdout;
    const needs = /It needs ([^.]*)\./.exec(demoHelp)?.[1];
    expect(needs).toMatch(/^java and\s+mvn on PATH/);
    expect(needs).not.toMatch(/checkout/);
    // Here the peer is the checkout's; an install has dist/java (test/package checks the packed files).
    expect(javaPeerFile()).toMatch(/JavaPeer\.(ts|js)$/);
  });
});
