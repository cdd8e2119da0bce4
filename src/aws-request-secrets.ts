/**
 * AWS SDK clients whose keys come from the SDK's default chain (environment, profile, instance
 * role) use credentials Thund never reads itself, so nothing registered them (secrets.ts). This
 * middleware registers what each signed request carries — the access key id in `Authorization:
 * AWS4-HMAC-SHA256 Credential=<id>/…` and the `X-Amz-Security-Token` — before it is sent, so a
 * server that echoes the request cannot get them printed. The secret access key is never sent.
 */
import { registerShortLivedSecret } from './secrets.js';

/** Runs in the SDK's `deserialize` step: after signing, once per attempt. */
export function registerSentAwsCredentials<A extends { readonly request: unknown }, R>(next: (args: A) => Promise<R>): (args: A) => Promise<R> {
  return (args) => {
    const headers = (args.request as { headers?: Readonly<Record<string, string | undefined>> } | undefined)?.headers ?? {};
    for (const [name, value] of Object.entries(headers)) {
      const header = name.toLowerCase();
      if (header === 'x-amz-security-token') registerShortLivedSecret(value);
      if (header === 'authorization' && value !== undefined) registerShortLivedSecret(/Credential=([^/,\s]+)/.exec(value)?.[1]);
    }
    return next(args);
  };
}

export const REGISTER_SENT_AWS_CREDENTIALS = { step: 'deserialize', name: 'thundRegisterSentAwsCredentials' } as const;
