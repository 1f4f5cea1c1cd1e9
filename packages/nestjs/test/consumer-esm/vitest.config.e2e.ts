import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: './',
    include: ['**/*.e2e-spec.ts'],
  },
});
