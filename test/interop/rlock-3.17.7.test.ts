// RLock interop with Java Redisson 3.17.7: the scenarios live in ./support/suite.ts.
import { defineInteropSuite } from './support/suite.js';

defineInteropSuite('3.17.7');
