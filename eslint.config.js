// typescript-eslint's recommended rules over the TypeScript sources; Prettier owns the formatting.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/**", "api-docs/**", "node_modules/**", "test/fixtures/**", "**/.next/**", "examples/**/.next/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts", "**/*.tsx"],
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_", caughtErrors: "none" }],
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "@typescript-eslint/no-explicit-any": "error",
      eqeqeq: ["error", "always", { null: "ignore" }],
      "no-restricted-syntax": [
        "error",
        {
          selector: "SpreadElement > ConditionalExpression[alternate.type='ObjectExpression'][alternate.properties.length=0]",
          message: "A conditional spread: use defined({ ... }) from src/core/defined.ts, which leaves out undefined fields.",
        },
      ],
    },
  },
  {
    files: ["**/*.js", "**/*.mjs", "**/*.cjs"],
    languageOptions: { globals: { process: "readonly", console: "readonly", URL: "readonly", module: "writable", require: "readonly", __dirname: "readonly" } },
  },
);
