// One flat config for the whole workspace: typed linting so promise mistakes
// (a forgotten await on a NATS request or a SQL query) fail CI.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      'test-artifacts/**',
      'deploy/**/*.js',
      // A merchant's program on a client generated at test time: tsc --strict checks it
      // there (system/generated-client.system.test.ts), beside the types it imports.
      'system/generated-client/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: globals.node,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  {
    files: ['**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // Command-line entry points talk to a person on stdout.
    files: ['tools/admin-cli/src/**', 'scripts/**', 'bench/**', 'campaign/main.ts'],
    rules: { 'no-console': 'off' },
  },
);
