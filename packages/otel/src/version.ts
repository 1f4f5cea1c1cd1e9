/** The package's name: the instrumentation scope of its tracer and meter. */
export const PACKAGE_NAME = 'redisson-ts-otel';
/** The package's version (checked against package.json by its tests). */
export const PACKAGE_VERSION = '0.1.0';
