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

/** The file positions of a stack trace's frames, innermost first (`node:` frames included). */
export function stackFrames(stack: string): Origin[] {
  return stack.split('\n').flatMap((frame) => {
    const match = FRAME.exec(frame.trim());
    return match === null ? [] : [{ file: (match[1] ?? '').replace(/^file:\/\//, ''), line: Number(match[2]), column: Number(match[3]) }];
  });
}

/**
 * The first stack frame outside the files named by `internalFiles` (the builder itself): that is
 * the user's line that declared the element.
 */
export function callerOrigin(internalFiles: readonly string[]): Origin {
  const frames = stackFrames(new Error().stack?.split('\n').slice(1).join('\n') ?? '');
  const caller = frames.find(({ file }) => !file.startsWith('node:') && !internalFiles.some((internal) => file.endsWith(internal)));
  return caller ?? UNKNOWN_ORIGIN;
}
