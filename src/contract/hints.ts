/** Default re-prompt texts. Workflow-safe. */

/** actWhenAsked's default hint: ask the model to call the tool now. */
export function defaultActHint(requiredTools: string[], require: "any" | "all"): string {
  const tools = requiredTools.map((name) => `\`${name}\``).join(require === "all" ? " and " : " or ");
  return `You answered without making the change the user asked for. Call ${tools} now to make it, then confirm what you changed.`;
}

/** onToolRefusal's default hint: quote the reason and ask for a valid option. */
export function defaultRefusalHint(tool: string, reason: string): string {
  return `The \`${tool}\` tool refused your call: ${JSON.stringify(reason)}. Pick a valid option and call \`${tool}\` again.`;
}

/** onInvalidOutput's default hint: quote the validation error and ask for JSON that matches. */
export function defaultOutputHint(issues: string): string {
  return `Your answer is not valid output: ${issues} Answer again with only JSON that matches the required schema.`;
}
