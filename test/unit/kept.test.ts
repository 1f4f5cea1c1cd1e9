import { describe, expect, it } from 'vitest';
import { KeptMap, KeptSet } from '../../src/kept.js';
import { newRequestId } from '../../src/requestId.js';

describe('KeptMap / KeptSet (a table not reallocated when emptied)', () => {
  it('behave as a Map: size, get, has, delete, insertion order, clear; the hidden entry never shows', () => {
    const map = new KeptMap<string, number>();
    expect(map.size).toBe(0);
    map.set('b', 2).set('a', 1).set('c', 3);
    expect(map.size).toBe(3);
    expect(map.get('a')).toBe(1);
    expect(map.has('z')).toBe(false);
    expect([...map]).toEqual([['b', 2], ['a', 1], ['c', 3]]);
    expect([...map.keys()]).toEqual(['b', 'a', 'c']);
    expect([...map.values()]).toEqual([2, 1, 3]);
    expect(map.delete('b')).toBe(true);
    expect(map.delete('b')).toBe(false);
    // Deleting while iterating, as a Map allows.
    for (const key of map.keys()) map.delete(key);
    expect(map.size).toBe(0);
    expect([...map.entries()]).toEqual([]);
    map.set('x', 9);
    map.clear();
    expect(map.size).toBe(0);
    map.set('y', 1);
    expect([...map]).toEqual([['y', 1]]);
  });

  it('behave as a Set', () => {
    const set = new KeptSet<object>();
    const [a, b] = [{}, {}];
    set.add(a).add(b).add(a);
    expect(set.size).toBe(2);
    expect([...set]).toEqual([a, b]);
    expect(set.has(b)).toBe(true);
    expect(set.delete(a)).toBe(true);
    expect(set.delete(a)).toBe(false);
    expect([...set.values()]).toEqual([b]);
    set.delete(b);
    expect(set.size).toBe(0);
    expect([...set]).toEqual([]);
    set.add(a);
    set.clear();
    expect(set.size).toBe(0);
    expect([...set]).toEqual([]);
  });
});

describe('request ids (the unlock latch suffix)', () => {
  it('are 32 lower-case hex digits, as Redisson generateId(), and do not repeat across pool refills', () => {
    const ids = Array.from({ length: 1_000 }, () => newRequestId());
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
