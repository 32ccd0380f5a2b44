// typescript-eslint's recommended rules over the TypeScript sources; Prettier owns the formatting.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

/**
 * `...(x !== undefined ? { x } : {})`, or `...(x ? { key: x } : {})`: a conditional spread that only
 * leaves out an undefined field. `defined({ key: x })` (src/core/defined.ts) says that in one call.
 * A spread whose condition is not its value (a flag, a derived value) is a real condition and stays.
 */
const definedRule = {
  meta: {
    type: "suggestion",
    messages: {
      useDefined:
        "Use defined({{{ fields }}}) from src/core/defined.ts: this spread only leaves out an undefined field.",
    },
  },
  create(context) {
    const text = (node) => context.sourceCode.getText(node);
    return {
      "SpreadElement > ConditionalExpression"(node) {
        const { test, consequent, alternate } = node;
        if (alternate.type !== "ObjectExpression" || alternate.properties.length) return;
        if (consequent.type !== "ObjectExpression" || consequent.properties.length !== 1) return;
        const prop = consequent.properties[0];
        if (prop.type !== "Property" || prop.computed) return;
        const undefinedCheck =
          test.type === "BinaryExpression" && test.operator === "!==" && text(test.right) === "undefined";
        const guard = text(undefinedCheck ? test.left : test);
        const value = text(prop.value);
        if (undefinedCheck && (value === guard || value === guard + "!"))
          context.report({ node, messageId: "useDefined", data: { fields: ` ${text(prop)} ` } });
      },
    };
  },
};

export default tseslint.config(
  {
    ignores: [
      "dist/**",
      "api-docs/**",
      "node_modules/**",
      "test/fixtures/**",
      "test-artifacts/**",
      "bench-results/**",
      "**/.next/**",
      "bench/peer-workflow-agent/.well-known/**",
      ".cache/**", // builds and downloads kept between runs (the stack's, CI's: .ci/run)
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts", "**/*.tsx"],
    plugins: { local: { rules: { "use-defined": definedRule } } },
    rules: {
      "@typescript-eslint/no-unused-vars": [
        "error",
        {
          args: "none",
          varsIgnorePattern: "^_",
          destructuredArrayIgnorePattern: "^_",
          caughtErrors: "none",
        },
      ],
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "@typescript-eslint/no-explicit-any": "error",
      eqeqeq: ["error", "always", { null: "ignore" }],
      "prefer-const": ["error", { ignoreReadBeforeAssign: true }],
      "local/use-defined": "error",
    },
  },
  {
    // Lines of src/ stay within 160 characters. Prettier wraps code at 120, but not one-line doc
    // comments, strings or templates; those are wrapped by hand. A regex literal cannot be wrapped
    // without becoming a `new RegExp()` of strings, so it may run long.
    files: ["src/**/*.ts", "src/**/*.tsx"],
    rules: { "max-len": ["error", { code: 160, ignoreRegExpLiterals: true }] },
  },
  {
    // The studio page runs in a browser: no Node built-ins (its tsconfig has no @types/node either).
    files: ["src/studio/page/app/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [{ regex: "^node:", message: "The studio page runs in a browser: no Node built-ins." }] },
      ],
    },
  },
  {
    files: ["**/*.js", "**/*.mjs", "**/*.cjs"],
    languageOptions: {
      globals: {
        process: "readonly",
        console: "readonly",
        URL: "readonly",
        module: "writable",
        require: "readonly",
        __dirname: "readonly",
      },
    },
  },
);
