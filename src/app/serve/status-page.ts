/**
 * The status page `thund serve` answers GET / with: server-side HTML, no script and no external
 * asset, refreshing itself every few seconds. It shows what GET /status reports — the graph,
 * per flow its state and last commit, per source partition the lag, the latest dead letters with
 * their reasons, per table its files, snapshots and last maintenance. Every value cell carries
 * `data-key` (its place in the report), so a test can hold the page against /status.
 */
import type { ServeStatusReport } from './serve-status.js';

export const STATUS_REFRESH_SECONDS = 5;

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escape = (text: string): string => text.replace(/[&<>"']/g, (char) => ESCAPES[char]!);

type Cell = string | number | null;

/** A value cell: its text, and the report path it shows. */
const cell = (key: string, value: Cell): string =>
  `<td data-key="${escape(key)}"${typeof value === 'number' ? ' class="n"' : ''}>${value === null ? '–' : escape(String(value))}</td>`;

function table(caption: string, headers: readonly string[], rows: readonly string[], empty: string): string {
  const head = headers.map((header) => `<th>${escape(header)}</th>`).join('');
  const body = rows.length === 0 ? `<tr><td colspan="${headers.length}" class="empty">${escape(empty)}</td></tr>` : rows.join('\n');
  return `<h2>${escape(caption)}</h2>\n<table><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

function graph(report: ServeStatusReport): string {
  const lines = report.flows.map((flow) => {
    const reads = flow.reads.map((read) => (read.stream ? `STREAM(${escape(read.name)})` : escape(read.name))).join(', ');
    return `<li><code>${reads === '' ? '(no input)' : reads}</code> → <b>${escape(flow.target)}</b> <span class="muted">flow ${escape(flow.name)}</span></li>`;
  });
  return `<h2>Pipeline graph</h2>\n<ul class="graph">${lines.join('\n')}</ul>`;
}

export function renderStatusPage(report: ServeStatusReport): string {
  const flows = report.flows.map((flow) => {
    const key = `flows/${flow.name}`;
    return `<tr><th scope="row">${escape(flow.name)}</th>${[
      cell(`${key}/state`, flow.state),
      cell(`${key}/commits`, flow.commits),
      cell(`${key}/rowsRead`, flow.rowsRead),
      cell(`${key}/rowsWritten`, flow.rowsWritten),
      cell(`${key}/lateRows`, flow.lateRows),
      cell(`${key}/lastCommit/at`, flow.lastCommit?.at ?? null),
      cell(`${key}/lastCommit/snapshotId`, flow.lastCommit?.snapshotId ?? null),
      cell(`${key}/lastCommit/rowsWritten`, flow.lastCommit?.rowsWritten ?? null),
      cell(`${key}/lastError`, flow.lastError === null ? null : `${flow.lastError.code}: ${flow.lastError.message}`),
    ].join('')}</tr>`;
  });
  const sources = report.sources.map((p) => {
    const key = `sources/${p.source}/${p.flow}/${p.topic}/${p.partition}`;
    return `<tr><th scope="row">${escape(p.source)}</th><td>${escape(p.flow)}</td><td>${escape(p.topic)}</td>${[
      cell(`${key}/partition`, p.partition),
      cell(`${key}/endOffset`, p.endOffset),
      cell(`${key}/position`, p.position),
      cell(`${key}/lag`, p.lag),
      cell(`${key}/records`, p.records),
      cell(`${key}/deadLetters`, p.deadLetters),
    ].join('')}</tr>`;
  });
  const letters = [...report.deadLetters.recent].reverse().map(
    (letter, index) =>
      `<tr>${[
        cell(`deadLetters/recent/${index}/at`, letter.at),
        cell(`deadLetters/recent/${index}/source`, letter.source),
        cell(`deadLetters/recent/${index}/where`, `${letter.topic}[${letter.partition}]@${letter.offset}`),
        cell(`deadLetters/recent/${index}/code`, letter.code),
        cell(`deadLetters/recent/${index}/reason`, letter.reason),
      ].join('')}</tr>`,
  );
  const tables = report.tables.map((t) => {
    const key = `tables/${t.table}`;
    const maintenance = t.lastMaintenance === null ? null : `${t.lastMaintenance.action} ${t.lastMaintenance.outcome} at ${t.lastMaintenance.at}${t.lastMaintenance.detail === '' ? '' : `: ${t.lastMaintenance.detail}`}`;
    return `<tr><th scope="row">${escape(t.table)}</th>${[
      cell(`${key}/records`, t.records),
      cell(`${key}/dataFiles`, t.dataFiles),
      cell(`${key}/deleteFiles`, t.deleteFiles),
      cell(`${key}/snapshots`, t.snapshots),
      cell(`${key}/currentSnapshotId`, t.currentSnapshotId),
      cell(`${key}/lastCommitAt`, t.lastCommitAt),
      cell(`${key}/lastMaintenance`, maintenance),
    ].join('')}</tr>`;
  });
  const last = report.triggers.last;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="refresh" content="${STATUS_REFRESH_SECONDS}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>thund serve · ${escape(report.pipeline)}</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5rem; color: #1d2330; background: #fafbfc; }
h1 { font-size: 1.3rem; margin: 0 0 .3rem; } h2 { font-size: 1.05rem; margin: 1.6rem 0 .5rem; }
table { border-collapse: collapse; background: #fff; box-shadow: 0 0 0 1px #dde1e8; }
th, td { padding: .3rem .6rem; border-bottom: 1px solid #eceff3; text-align: left; white-space: nowrap; }
thead th { background: #f1f3f6; font-weight: 600; } td.n { text-align: right; font-variant-numeric: tabular-nums; }
.badge { display: inline-block; padding: .1rem .5rem; border-radius: .6rem; color: #fff; font-weight: 600; }
.ok { background: #1f8a4c; } .not-ok { background: #c0392b; } .muted, .empty { color: #6b7385; }
ul.graph { margin: 0; padding-left: 1.2rem; } code { font-size: 13px; }
</style>
</head>
<body>
<h1>thund serve · pipeline <span data-key="pipeline">${escape(report.pipeline)}</span></h1>
<p><span data-key="ready" class="badge ${report.ready ? 'ok' : 'not-ok'}">${report.ready ? 'ready' : `not ready: ${escape(report.reasons.join(', '))}`}</span>
 <span class="muted">checks: ${Object.entries(report.checks).map(([name, ok]) => `${escape(name)} ${ok ? 'ok' : 'failing'}`).join(', ')}</span></p>
<p class="muted">started <span data-key="startedAt">${escape(report.startedAt)}</span> · page of <span data-key="now">${escape(report.now)}</span>, refreshed every ${STATUS_REFRESH_SECONDS} s ·
 triggers <span data-key="triggers/total">${report.triggers.total}</span> (failed <span data-key="triggers/failed">${report.triggers.failed}</span>)${
   last === null ? '' : ` · last ${escape(last.at)} <span data-key="triggers/last/status">${escape(last.status)}</span>${last.error === null ? '' : `: ${escape(last.error)}`}`
 } · <a href="/status">/status</a> · <a href="/metrics">/metrics</a></p>
${graph(report)}
${table('Flows', ['flow', 'state', 'commits', 'rows read', 'rows written', 'late rows', 'last commit', 'snapshot', 'rows in last commit', 'last error'], flows, 'no flows')}
${table('Source partitions', ['source', 'flow', 'topic', 'partition', 'end offset', 'position', 'lag', 'records', 'dead letters'], sources, 'no Kafka source read yet')}
${table(`Dead letters (total ${report.deadLetters.total}; latest first)`, ['read at', 'source', 'topic[partition]@offset', 'code', 'reason'], letters, 'none')}
${table('Tables', ['table', 'records', 'data files', 'delete files', 'snapshots', 'current snapshot', 'last commit', 'last maintenance'], tables, 'no tables')}
</body>
</html>
`;
}
