/**
 * The word count run in OS processes of their own (InstanceProcess), for the tests that SIGKILL them: one
 * application's topics, the processes started for it, and the cleanup that leaves no process behind.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createTopics } from '../../../src/streams/kafka';
import { KafkaTestClients, bootstrapServers, uniqueName } from '../../support/kafka';
import { InstanceProcess, type ChildSpawner } from './instance-process';

export class WordCountProcesses {
  readonly clients = new KafkaTestClients();
  /** Logs and state of the processes; removed by `cleanUp`. */
  readonly workDir: string;
  readonly applicationId: string;
  readonly input: string;
  readonly output: string;
  private readonly children: InstanceProcess[] = [];

  constructor(name: string) {
    this.workDir = fs.mkdtempSync(path.join(os.tmpdir(), `sluice-it-${name}-`));
    this.applicationId = uniqueName(name);
    this.input = uniqueName(`${name}-in`);
    this.output = uniqueName(`${name}-out`);
  }

  async createTopics(partitions: number): Promise<void> {
    const admin = await this.clients.admin();
    await createTopics(admin, [
      { name: this.input, partitions },
      { name: this.output, partitions },
    ]);
  }

  /**
   * Starts a process with this application's id and the broker under test, plus `config` (where `spawner` says;
   * with `failOnLine`, a topology that fails on that line instead of the word count, in its threads in workers only
   * when `failIn` says so).
   */
  start(name: string, config: Record<string, string | number | boolean>, spawner?: ChildSpawner, failOnLine?: string, failIn?: 'any' | 'worker'): InstanceProcess {
    const child = InstanceProcess.start(
      {
        name,
        input: this.input,
        output: this.output,
        logLevel: process.env.SLUICE_TEST_LOG_LEVEL ?? 'warn',
        config: { 'application.id': this.applicationId, 'bootstrap.servers': bootstrapServers().join(','), ...config },
        ...(failOnLine === undefined ? {} : { failOnLine }),
        ...(failIn === undefined ? {} : { failIn }),
      },
      this.workDir,
      spawner,
    );
    this.children.push(child);
    return child;
  }

  /** Kills what still runs (even when a test failed half-way), then closes the clients and removes the files. */
  async cleanUp(): Promise<void> {
    await Promise.allSettled(this.children.map((child) => child.kill()));
    await this.clients.close();
    fs.rmSync(this.workDir, { recursive: true, force: true });
  }
}
