/**
 * Argument handling of `redisson-ts`: help, exit codes (0 ok, 1 runtime failure, 2 usage), and errors
 * as one line without a stack trace.
 */
import { describe, expect, it } from 'vitest';
import { main } from '../../packages/cli/src/main.js';
import { runCli, runMain } from './cliHarness.js';

const oneLine = (text: string): void => {
  expect(text.trimEnd().split('\n')).toHaveLength(1);
  expect(text).toMatch(/^redisson-ts: /);
  expect(text).not.toMatch(/\n\s+at /);
};

describe('as a process (node --import tsx packages/cli/src/main.ts)', () => {
  it('prints help and exits 0', async () => {
    const run = await runCli(['--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: redisson-ts <command>/);
    expect(run.stdout).toContain('demo');
    expect(run.stdout).toContain('inspect <name>');
    expect(run.stdout).toContain('bench');
    expect(run.stderr).toBe('');
  });

  it('exits 2 on an unknown command, with one line on stderr', async () => {
    const run = await runCli(['sell-everything']);
    expect(run.code).toBe(2);
    oneLine(run.stderr);
    expect(run.stderr).toContain("unknown command 'sell-everything'");
    expect(run.stdout).toBe('');
  });

  it('without REDIS_URL and without redis-server on PATH, exits 1 with the install hint', async () => {
    const run = await runCli(['demo', '--stock', '5', '--buyers', '2'], { PATH: '/nonexistent' });
    expect(run.code).toBe(1);
    oneLine(run.stderr);
    expect(run.stderr).toContain('redis-server not found: install it');
  });

  it('exits 1 on a bad Redis URL, with one line on stderr', async () => {
    const run = await runCli(['demo', '--redis', 'not a url']);
    expect(run.code).toBe(1);
    oneLine(run.stderr);
    expect(run.stderr).toContain("invalid Redis URL 'not a url'");
  });
});

describe('main(argv)', () => {
  it('without a command prints usage on stderr and exits 2', async () => {
    const run = await runMain(main, []);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^Usage: redisson-ts/);
    expect(run.stdout).toBe('');
  });

  it.each([['demo'], ['inspect'], ['bench']])('%s --help describes the subcommand and exits 0', async (command) => {
    const run = await runMain(main, [command, '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^Usage: redisson-ts ${command}`));
    const viaHelp = await runMain(main, ['help', command]);
    expect(viaHelp.stdout).toBe(run.stdout);
  });

  it('-h works like --help', async () => {
    expect((await runMain(main, ['-h'])).stdout).toBe((await runMain(main, ['--help'])).stdout);
    expect((await runMain(main, ['demo', '-h'])).code).toBe(0);
  });

  it('prints the version', async () => {
    const run = await runMain(main, ['--version']);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it.each([
    [['--frobnicate'], "unknown option '--frobnicate'"],
    [['help', 'frob'], "unknown command 'frob'"],
    [['demo', '--stock'], "Option '--stock <value>' argument missing"],
    [['demo', '--stock', 'ten'], "--stock must be an integer, got 'ten'"],
    [['demo', '--stock', '0'], '--stock must be between 1 and'],
    [['demo', '--buyers', '1'], '--buyers must be between 2 and'],
    [['demo', '--buyers', '3', '--processes', '4'], '--processes (4) cannot exceed --buyers (3)'],
    [['demo', '--only', 'naive,quantum'], "--only: unknown strategy 'quantum'"],
    [['demo', '--verbose'], "Unknown option '--verbose'"],
    [['demo', 'now'], "Unexpected argument 'now'"],
    [['inspect'], 'inspect: missing lock <name>'],
    [['inspect', 'a', 'b'], "inspect: unexpected argument 'b'"],
    [['inspect', 'a', '--ttl'], "Unknown option '--ttl'"],
  ])('usage error %j exits 2 with one line', async (args, message) => {
    const run = await runMain(main, args);
    expect(run.code).toBe(2);
    oneLine(run.stderr);
    expect(run.stderr).toContain(message);
    expect(run.stderr).toMatch(/\(see redisson-ts( \w+)? --help\)\n$/);
    expect(run.stdout).toBe('');
  });

  it.each([
    [['demo', '--redis', 'http://127.0.0.1:6379'], "invalid Redis URL 'http://127.0.0.1:6379'"],
    [['inspect', 'x', '--redis', '::nope'], "invalid Redis URL '::nope'"],
  ])('bad URL %j exits 1 with one line', async (args, message) => {
    const run = await runMain(main, args);
    expect(run.code).toBe(1);
    oneLine(run.stderr);
    expect(run.stderr).toContain(message);
  });

  it('no Redis at the URL: exits 1 with one line naming it', async () => {
    // Port 1 on loopback: nothing listens there (tcpmux), the connection is refused at once.
    for (const command of [['inspect', 'x'], ['demo']]) {
      const run = await runMain(main, [...command, '--redis', 'redis://127.0.0.1:1']);
      expect(run.code).toBe(1);
      oneLine(run.stderr);
      expect(run.stderr).toContain('cannot connect to Redis at redis://127.0.0.1:1');
    }
  });
});
