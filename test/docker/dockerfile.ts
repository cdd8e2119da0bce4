/**
 * A small Dockerfile reader for tests: instructions with line continuations joined, global ARG
 * defaults substituted into FROM, and the instructions grouped into build stages.
 */

export interface Instruction {
  readonly keyword: string; // upper case: FROM, RUN, COPY, USER, …
  readonly args: string; // the rest of the instruction, continuations joined with a space
  readonly line: number; // 1-based line where it starts
}

export interface Stage {
  readonly image: string; // FROM image after ARG substitution
  readonly name: string | undefined; // the `AS name`, lower-cased as Docker treats it
  readonly instructions: readonly Instruction[]; // after FROM, up to the next FROM
}

export interface Dockerfile {
  readonly globalArgs: ReadonlyMap<string, string>;
  readonly stages: readonly Stage[];
}

export function parseInstructions(text: string): Instruction[] {
  const out: Instruction[] = [];
  const lines = text.split(/\r?\n/);
  let pending: { parts: string[]; line: number } | undefined;
  lines.forEach((raw, index) => {
    const trimmed = raw.trim();
    // Comment lines are dropped even inside a continued instruction, as Docker does.
    if (trimmed.startsWith('#') || (trimmed === '' && pending === undefined)) return;
    const continued = trimmed.endsWith('\\');
    const body = continued ? trimmed.slice(0, -1).trim() : trimmed;
    if (pending === undefined) pending = { parts: [], line: index + 1 };
    if (body !== '') pending.parts.push(body);
    if (continued) return;
    const joined = pending.parts.join(' ');
    const match = /^(\S+)\s*(.*)$/.exec(joined);
    if (match?.[1] !== undefined) {
      out.push({ keyword: match[1].toUpperCase(), args: match[2] ?? '', line: pending.line });
    }
    pending = undefined;
  });
  return out;
}

/** `${NAME}`, `${NAME:-default}` and `$NAME` from the given ARG values. */
export function substituteArgs(value: string, args: ReadonlyMap<string, string>): string {
  return value.replace(/\$\{(\w+)(?::-([^}]*))?\}|\$(\w+)/g, (_m, braced: string | undefined, fallback: string | undefined, bare: string | undefined) => {
    const name = braced ?? bare ?? '';
    const found = args.get(name);
    return found !== undefined && found !== '' ? found : (fallback ?? '');
  });
}

export function parseDockerfile(text: string): Dockerfile {
  const globalArgs = new Map<string, string>();
  const stages: { image: string; name: string | undefined; instructions: Instruction[] }[] = [];
  for (const instruction of parseInstructions(text)) {
    if (instruction.keyword === 'FROM') {
      const words = instruction.args.split(/\s+/).filter((w) => !w.startsWith('--'));
      const image = substituteArgs(words[0] ?? '', globalArgs);
      const asIndex = words.findIndex((w) => w.toUpperCase() === 'AS');
      const name = asIndex >= 0 ? words[asIndex + 1]?.toLowerCase() : undefined;
      stages.push({ image, name, instructions: [] });
      continue;
    }
    const current = stages[stages.length - 1];
    if (current === undefined) {
      if (instruction.keyword === 'ARG') {
        const [key, ...rest] = instruction.args.split('=');
        globalArgs.set((key ?? '').trim(), rest.join('=').trim().replace(/^"(.*)"$/, '$1'));
      }
      continue;
    }
    current.instructions.push(instruction);
  }
  return { globalArgs, stages };
}

/** The instructions of one keyword in a stage. */
export function instructionsOf(stage: Stage, keyword: string): Instruction[] {
  return stage.instructions.filter((i) => i.keyword === keyword.toUpperCase());
}

/** The exec-form (JSON array) arguments of ENTRYPOINT/CMD, or undefined for the shell form. */
export function execForm(instruction: Instruction | undefined): string[] | undefined {
  if (instruction === undefined || !instruction.args.startsWith('[')) return undefined;
  const parsed: unknown = JSON.parse(instruction.args);
  return Array.isArray(parsed) && parsed.every((p) => typeof p === 'string') ? parsed : undefined;
}
