import { describe, expect, it } from 'vitest';
import { BaseEnv, ConfigError, loadConfig } from '../src/config.ts';
import { inboxPrefixOf, natsAccessOf, natsConnectionOptions } from '../src/nats.ts';

const env = (extra: Record<string, string>) => loadConfig(BaseEnv, { OPS_PORT: '0', ...extra });

describe('a service as its NATS user', () => {
  it('connects anonymously with the default inboxes when no user is set', () => {
    const options = natsConnectionOptions(
      'nats://127.0.0.1:4222',
      'dzpay-x',
      natsAccessOf(env({})),
    );
    expect(options).not.toHaveProperty('user');
    expect(options).not.toHaveProperty('inboxPrefix');
    expect(options).not.toHaveProperty('tls');
    expect(options.servers).toEqual(['nats://127.0.0.1:4222']);
  });

  it('logs in as NATS_USER, with replies in its own inbox', () => {
    const config = env({ NATS_USER: 'receipts', NATS_PASSWORD: 'p4ssw0rd-p4ssw0rd' });
    const options = natsConnectionOptions(
      'nats://a:4222, nats://b:4222',
      'dzpay-receipts',
      natsAccessOf(config),
    );
    expect(options).toMatchObject({
      servers: ['nats://a:4222', 'nats://b:4222'],
      user: 'receipts',
      pass: 'p4ssw0rd-p4ssw0rd',
      inboxPrefix: '_INBOX_receipts',
    });
    expect(inboxPrefixOf('receipts')).toBe('_INBOX_receipts');
  });

  it('requires TLS for a tls:// URL or TLS files, with the files given', () => {
    expect(natsConnectionOptions('tls://nats:4222', 'x').tls).toEqual({});
    const config = env({
      NATS_TLS_CA_FILE: '/etc/ca.crt',
      NATS_TLS_CERT_FILE: '/etc/tls.crt',
      NATS_TLS_KEY_FILE: '/etc/tls.key',
    });
    expect(natsConnectionOptions('nats://nats:4222', 'x', natsAccessOf(config)).tls).toEqual({
      caFile: '/etc/ca.crt',
      certFile: '/etc/tls.crt',
      keyFile: '/etc/tls.key',
    });
  });

  it('refuses half a credential, without printing the password', () => {
    const half = () => env({ NATS_PASSWORD: 'never-print-me-0123' });
    expect(half).toThrow(ConfigError);
    expect(half).toThrow(/NATS_USER, NATS_PASSWORD: set both or neither/);
    try {
      half();
    } catch (error) {
      expect(String(error)).not.toContain('never-print-me');
    }
    expect(() => env({ NATS_TLS_CERT_FILE: '/etc/tls.crt' })).toThrow(/NATS_TLS_KEY_FILE/);
    expect(() => env({ NATS_USER: 'a.b', NATS_PASSWORD: 'x' })).toThrow(/NATS_USER/);
  });
});
