import { CONFIG_KEYS, describeAppliedKeys } from './config-keys';

describe('the configuration table', () => {
  it('documents every key Sluice applies, but the topic configurations it passes on as given', () => {
    const undocumented = CONFIG_KEYS.filter((k) => k.applied !== undefined && !k.scopes.includes('topic') && k.doc === undefined).map((k) => k.name);
    expect(undocumented).toEqual([]);
  });

  it('gives `sluice start --help` each applied key with its type, default and doc, and no default of a password', () => {
    const help = describeAppliedKeys();
    expect(help).toContain('  commit.interval.ms (long, default 30000)\n      How often tasks commit');
    expect(help).toContain('  processing.guarantee (string, default at_least_once)\n');
    expect(help).toContain('  sasl.jaas.config (password)\n');
    expect(help).not.toContain('cleanup.policy');
    // Accepted for compatibility, not applied: not listed as if it did something.
    expect(help).not.toContain('max.poll.records');
  });
});
