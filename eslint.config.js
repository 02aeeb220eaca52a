// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** A package whose values must come from elsewhere at run time; its types may be imported. */
function restrictedAtRunTime(name, instead) {
  return { name, allowTypeImports: true, message: `at run time, import ${name} from ${instead}` };
}

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'coverage/**', '**/*.d.ts', '**/.scratch/**'] },
  js.configs.recommended,
  {
    files: ['**/*.ts'],
    extends: [...tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // zod, Fastify and pino reach run time through irserve's prebundled copies (one file each,
    // loaded in a fraction of the time; see scripts/prebundle.mjs); type imports are free.
    // Plugins take z from 'irserve/plugin' so that their schemas and irserve's share one zod.
    files: ['packages/*/src/**/*.ts'],
    ignores: ['packages/irserve/src/prebundled/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [restrictedAtRunTime('zod', "z from 'irserve/plugin' (irserve: src/prebundled)")],
        },
      ],
    },
  },
  {
    files: ['packages/irserve/src/**/*.ts'],
    ignores: ['packages/irserve/src/prebundled/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: ['zod', 'fastify', 'pino'].map((name) =>
            restrictedAtRunTime(name, `src/prebundled/${name}.js`),
          ),
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        Buffer: 'readonly',
        performance: 'readonly',
        setImmediate: 'readonly',
        fetch: 'readonly',
      },
    },
  },
  {
    // The playground (served as is to browsers) and the probes its test adds to the page.
    files: ['packages/irserve/ui/**/*.js', 'packages/irserve/test/ui/**/*.js'],
    languageOptions: {
      globals: {
        window: 'readonly',
        document: 'readonly',
        sessionStorage: 'readonly',
        getComputedStyle: 'readonly',
        Image: 'readonly',
        Option: 'readonly',
        Blob: 'readonly',
        history: 'readonly',
        location: 'readonly',
        navigator: 'readonly',
        URLSearchParams: 'readonly',
        AbortController: 'readonly',
        DOMParser: 'readonly',
      },
    },
  },
);
