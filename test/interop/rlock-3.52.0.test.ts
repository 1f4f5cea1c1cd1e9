// RLock interop with Java Redisson 3.52.0: the scenarios live in ./support/suite.ts.
import { defineInteropSuite } from './support/suite.js';

defineInteropSuite('3.52.0');
