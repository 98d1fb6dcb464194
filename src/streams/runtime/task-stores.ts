import type { Logger } from 'pino';
import { CorruptedTaskState } from '../../errors';
import { EARLIEST } from '../kafka';
import type { ChangelogToRestore } from './changelog-restorer';
import type { StateDirectory } from './state-directory';
import type { ProcessorStateManager } from './state-manager';
import type { ChangelogOffset, TaskCheckpoints } from './task-checkpoints';
import type { StoreMetadata } from './topology-metadata';

/** A task's stores, as opening, restoring and checkpointing them sees them: a state manager, or an active task, which has one. */
export type TaskStores = Pick<ProcessorStateManager, 'id' | 'name' | 'stores' | 'initializeStores' | 'closeStores' | 'flushStores' | 'restore'>;

/**
 * Opens the stores of a task whose directory is locked, for an active task and a standby alike: local state that
 * nothing vouches for (no checkpoint, or a process that died while opening it) is wiped first, and a store found
 * corrupted is wiped and opened empty; the changelogs then restore what is missing.
 */
export async function openTaskStores(task: TaskStores, stateDirectory: StateDirectory, checkpoints: TaskCheckpoints, logger: Logger): Promise<void> {
  const name = task.name;
  if (stateDirectory.openingInterrupted(name)) {
    logger.warn({ taskId: name }, `the process died while task ${name}'s stores were opening; its state will be restored from its changelogs`);
    stateDirectory.wipeTaskState(name);
  } else if (checkpoints.read(name) === undefined) {
    // Without a checkpoint nothing says how far local state got: start empty and restore the whole changelog.
    stateDirectory.wipeTaskState(name);
  }
  stateDirectory.openingStores(name);
  try {
    task.initializeStores();
  } catch (error) {
    if (!(error instanceof CorruptedTaskState)) throw error;
    logger.warn({ taskId: name, err: error }, `${error.message}; task ${name}'s state will be restored from its changelogs`);
    await task.closeStores();
    stateDirectory.wipeTaskState(name);
    stateDirectory.openingStores(name);
    task.initializeStores();
  }
  // Restored writes commit synchronously: whatever opening the stores wrote must commit before them.
  await task.flushStores();
  stateDirectory.storesOpened(name);
}

/** A task's changelog partitions to read into its opened stores, each from its checkpoint or, without one, from the log start. */
export function changelogsOf(task: TaskStores, stores: readonly StoreMetadata[], checkpoints: TaskCheckpoints): ChangelogToRestore[] {
  const checkpoint = checkpoints.read(task.name);
  const partition = task.id.partition;
  const changelogs: ChangelogToRestore[] = [];
  for (const store of stores) {
    const instance = task.stores.get(store.name);
    if (store.changelog === undefined || !instance) continue;
    const startOffset = checkpoint?.get(store.changelog, partition) ?? EARLIEST;
    changelogs.push({ taskId: task.name, store: store.name, topic: store.changelog, partition, startOffset, apply: (records) => task.restore(store.name, records) });
  }
  return changelogs;
}

/** Checkpoints how far a task's changelogs were read into its stores, once the stores hold that durably. */
export async function checkpointRestore(task: Pick<TaskStores, 'name' | 'flushStores'>, positions: readonly ChangelogOffset[], checkpoints: TaskCheckpoints): Promise<void> {
  if (positions.length === 0) return;
  await task.flushStores();
  checkpoints.restoring(task.name, positions);
}
