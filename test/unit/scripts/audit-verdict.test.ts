import { describe, expect, it } from 'vitest';
import { auditVerdict } from '../../../scripts/audit-verdict.js';

const report = (vulnerabilities: Record<string, unknown>): string =>
  JSON.stringify({ auditReportVersion: 2, vulnerabilities, metadata: { vulnerabilities: {} } });

describe('npm audit verdict', () => {
  it('names each high and critical vulnerability with its range and advisories, and counts the rest', () => {
    const verdict = auditVerdict(
      report({
        tar: { severity: 'high', range: '<6.2.1', via: [{ title: 'Arbitrary File Creation' }, 'minipass'] },
        minipass: { severity: 'moderate', range: '<3.3.6', via: [] },
        ws: { severity: 'critical', range: '8.0.0 - 8.17.0', via: [{ title: 'DoS when handling a request with many HTTP headers' }] },
      }),
    );
    expect(verdict).toEqual({
      kind: 'audited',
      total: 3,
      blocking: [
        { name: 'tar', severity: 'high', range: '<6.2.1', advisories: ['Arbitrary File Creation'] },
        { name: 'ws', severity: 'critical', range: '8.0.0 - 8.17.0', advisories: ['DoS when handling a request with many HTTP headers'] },
      ],
    });
  });

  it('finds nothing blocking in a clean report', () => {
    expect(auditVerdict(report({}))).toEqual({ kind: 'audited', blocking: [], total: 0 });
  });

  it('tells a registry that refused the audit from a report, without the request address', () => {
    const refused = auditVerdict(JSON.stringify({ message: '405 Method Not Allowed - POST https://registry.example/-/npm/v1/security/advisories/bulk', statusCode: 405, body: '' }));
    expect(refused).toEqual({ kind: 'refused', reason: 'the audit request was answered 405' });
    expect(auditVerdict(JSON.stringify({ error: { code: 'ENOAUDIT', summary: 'Your configured registry does not support audit requests.' } }))).toEqual({
      kind: 'refused',
      reason: 'Your configured registry does not support audit requests.',
    });
    expect(auditVerdict('npm ERR! something')).toMatchObject({ kind: 'refused', reason: expect.stringContaining('npm ERR! something') });
  });
});
