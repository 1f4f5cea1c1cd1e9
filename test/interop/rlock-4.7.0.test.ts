// RLock interop with Java Redisson 4.7.0: the scenarios live in ./support/suite.ts.
import { defineInteropSuite } from './support/suite.js';

defineInteropSuite('4.7.0');
