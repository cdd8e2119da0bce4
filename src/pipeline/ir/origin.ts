/**
 * Where an element of a pipeline was declared: a YAML spec position, or the line of TypeScript
 * that called the builder. Every problem `validate()` reports names one.
 */
export interface Origin {
  readonly file: string;
  readonly line: number;
  readonly column: number;
}

export const UNKNOWN_ORIGIN: Origin = Object.freeze({ file: '<unknown>', line: 0, column: 0 });

export function formatOrigin(origin: Origin): string {
  return `${origin.file}:${origin.line}:${origin.column}`;
}

const FRAME = /\(?((?:file:\/\/)?[^\s()]+?):(\d+):(\d+)\)?$/;

/**
 * The first stack frame outside the files named by `internalFiles` (the builder itself): that is
 * the user's line that declared the element.
 */
export function callerOrigin(internalFiles: readonly string[]): Origin {
  const stack = new Error().stack?.split('\n').slice(1) ?? [];
  for (const frame of stack) {
    const match = FRAME.exec(frame.trim());
    if (match === null) continue;
    const file = (match[1] ?? '').replace(/^file:\/\//, '');
    if (file.startsWith('node:') || internalFiles.some((internal) => file.endsWith(internal))) continue;
    return { file, line: Number(match[2]), column: Number(match[3]) };
  }
  return UNKNOWN_ORIGIN;
}
