import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import pino from 'pino';
import { IllegalState } from '../../errors';
import { EARLIEST } from '../kafka';
import { RecordList } from '../kafka/testing/record-list';
import { Serdes } from '../serdes/serdes';
import type { KeyValueStore } from '../state/store';
import { Stores } from '../state/stores';
import { Topology } from '../topology/topology';
import { standbyTaskFactory } from './standby-task';
import { StateDirectory } from './state-directory';
import { parseStreamsConfig } from './streams-config';
import { TaskCheckpoints } from './task-checkpoints';
import { changelogsOf, checkpointRestore, openTaskStores } from './task-stores';
import { TopologyMetadata } from './topology-metadata';

const logger = pino({ level: 'silent' });
const CHANGELOG = 'app-latest-changelog';

/** input → remember, which writes each value into the logged store `latest`. */
function topology(): Topology {
  return new Topology()
    .addSource('source', 'input', { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .addProcessor('remember', () => ({ process: () => undefined }), 'source')
    .addStateStore(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore('latest'), Serdes.String(), Serdes.String()), 'remember');
}

describe('ProcessorStateManager of a standby task', () => {
  let stateDir: string;
  let directory: StateDirectory;
  const metadata = new TopologyMetadata(topology(), 'app');
  const config = parseStreamsConfig({ 'application.id': 'app', 'bootstrap.servers': 'localhost:9092' });

  beforeEach(() => {
    stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sluice-state-manager-'));
    directory = new StateDirectory(stateDir, 'app');
  });
  afterEach(() => fs.rmSync(stateDir, { recursive: true, force: true }));

  function standby() {
    const create = standbyTaskFactory({ config, metadata, stateDirectory: directory, defaultKeySerde: Serdes.String() as never, defaultValueSerde: Serdes.String() as never });
    return create({ subtopology: 0, partition: 1 });
  }

  it('opens the stores, restores their changelogs into them from the log start, and checkpoints where they got', async () => {
    const state = standby();
    const checkpoints = new TaskCheckpoints(directory, false);
    directory.lock(state.name, 'standby');
    await openTaskStores(state, directory, checkpoints, logger);
    const [changelog, ...others] = changelogsOf(state, metadata.subtopology(0)!.stores, checkpoints);
    expect(others).toEqual([]);
    expect([changelog!.store, changelog!.topic, changelog!.partition, changelog!.startOffset]).toEqual(['latest', CHANGELOG, 1, EARLIEST]);
    changelog!.apply(new RecordList([{ key: Buffer.from('k'), value: Buffer.from('restored'), timestamp: 1, offset: 0 }]));
    expect((state.stores.get('latest') as KeyValueStore<string, string>).get('k')).toBe('restored');
    await checkpointRestore(state, [{ topic: CHANGELOG, partition: 1, offset: 1 }], checkpoints);
    expect(directory.readCheckpoint(state.name)?.get(CHANGELOG, 1)).toBe(1);
    await state.close();
    expect(state.stores.get('latest')!.isOpen()).toBe(false);
    directory.unlock(state.name, 'standby');
  });

  it('writes nothing to a changelog: nothing is processed through a standby', async () => {
    const state = standby();
    state.initializeStores();
    expect(() => (state.stores.get('latest') as KeyValueStore<string, string>).put('k', 'v')).toThrow(IllegalState);
    await state.close();
  });
});
