import { describe, expect, it } from "vitest";
import { defined } from "./defined.js";

describe("defined", () => {
  it("leaves out undefined fields and keeps every other value, falsy ones included", () => {
    const context: string | undefined = undefined;
    const result = defined({ context, empty: "", zero: 0, no: false, nothing: null, list: [] as string[] });
    expect(result).toStrictEqual({ empty: "", zero: 0, no: false, nothing: null, list: [] });
    expect("context" in result).toBe(false);
  });

  it("types an always-defined field as required and a possibly-undefined one as optional", () => {
    const maybe = Math.random() > 2 ? "x" : undefined;
    const result: { always: number; maybe?: string } = defined({ always: 1, maybe });
    expect(result).toStrictEqual({ always: 1 });
  });
});
