/**
 * Reading the status page of `thund serve` against its /status report: the page's value cells by
 * their `data-key`, and the text the page writes for the report's value at such a key.
 */
import type { ServeStatusReport } from '../../src/app/serve/serve-status.js';

/** The page's value cells: data-key → text. */
export function pageCells(html: string): Map<string, string> {
  const cells = new Map<string, string>();
  for (const match of html.matchAll(/<(?:td|span) data-key="([^"]*)"[^>]*>([^<]*)</g)) cells.set(unescape(match[1]!), unescape(match[2]!));
  return cells;
}

const unescape = (text: string): string =>
  text.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&quot;', '"').replaceAll('&#39;', "'").replaceAll('&amp;', '&');

/** The report's value at a data-key path (`flows/<name>/rowsWritten`, …), as the page writes it. */
export function reportValue(report: ServeStatusReport, key: string): string {
  const [section, ...rest] = key.split('/');
  const text = (value: unknown): string => (value === null || value === undefined ? '–' : String(value));
  switch (section) {
    case 'flows': {
      const flow = report.flows.find((f) => f.name === rest[0])!;
      if (rest[1] === 'lastCommit') return text(flow.lastCommit?.[rest[2] as 'at']);
      if (rest[1] === 'lastError') return flow.lastError === null ? '–' : `${flow.lastError.code}: ${flow.lastError.message}`;
      return text(flow[rest[1] as 'commits']);
    }
    case 'sources': {
      const [source, flow, topic, partition, field] = rest;
      const p = report.sources.find((s) => s.source === source && s.flow === flow && s.topic === topic && String(s.partition) === partition)!;
      return text(p[field as 'lag']);
    }
    case 'tables': {
      const table = report.tables.find((t) => t.table === rest[0])!;
      if (rest[1] === 'lastMaintenance') {
        const last = table.lastMaintenance;
        return last === null ? '–' : `${last.action} ${last.outcome} at ${last.at}${last.detail === '' ? '' : `: ${last.detail}`}`;
      }
      return text(table[rest[1] as 'records']);
    }
    case 'triggers':
      return rest[0] === 'last' ? text(report.triggers.last?.status) : text(report.triggers[rest[0] as 'total']);
    case 'deadLetters': {
      const letter = [...report.deadLetters.recent].reverse()[Number(rest[1])]!;
      return rest[2] === 'where' ? `${letter.topic}[${letter.partition}]@${letter.offset}` : text(letter[rest[2] as 'reason']);
    }
    case 'ready':
      return report.ready ? 'ready' : `not ready: ${report.reasons.join(', ')}`;
    default:
      return text(report[section as 'pipeline']);
  }
}

