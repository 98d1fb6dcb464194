import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConfigException } from '../../errors';
import type { StateStore } from '../state/store';

/** Adjusts the LMDB options of one store before it opens (`embeddedstore.config.setter`). */
export type StoreConfigSetter = (storeName: string, options: Record<string, unknown>) => void;

/**
 * Loads the module named by `embeddedstore.config.setter` (a path, resolved from the working directory, or a
 * package name): its default export, or its export `configureStore`, must be a function.
 */
export function loadStoreConfigSetter(moduleName: string): StoreConfigSetter {
  const resolved = moduleName.startsWith('.') || path.isAbsolute(moduleName) ? path.resolve(moduleName) : moduleName;
  let loaded: unknown;
  try {
    loaded = require(resolved) as unknown;
  } catch (error) {
    throw new ConfigException(`'embeddedstore.config.setter': cannot load '${moduleName}': ${(error as Error).message}`);
  }
  const exports = loaded as { default?: unknown; configureStore?: unknown };
  const fn = typeof loaded === 'function' ? loaded : (exports.configureStore ?? exports.default);
  if (typeof fn !== 'function') {
    throw new ConfigException(`'embeddedstore.config.setter': '${moduleName}' exports no function (default or configureStore)`);
  }
  return fn as StoreConfigSetter;
}

export interface StoreStatisticsOptions {
  logDir: string;
  applicationId: string;
  periodSec: number;
  maxFileSize: number;
  /** The stores open now, with their task. */
  stores: () => { taskId: string; store: StateStore }[];
}

/**
 * Writes each store's statistics every `stats.dumpPeriodSec` as one JSON line per store to
 * `<log.dir>/<application.id>-store-stats.log`; past `log.maxFileSize` the file is rotated to `.1`.
 */
export class StoreStatisticsDumper {
  private timer: NodeJS.Timeout | undefined;
  readonly file: string;

  constructor(private readonly options: StoreStatisticsOptions) {
    this.file = path.join(options.logDir, `${options.applicationId}-store-stats.log`);
  }

  start(): void {
    fs.mkdirSync(this.options.logDir, { recursive: true });
    this.timer = setInterval(() => this.dump(), this.options.periodSec * 1000);
    this.timer.unref();
  }

  dump(): void {
    const now = new Date().toISOString();
    const lines = this.options
      .stores()
      .flatMap(({ taskId, store }) => {
        const stats = store.isOpen() ? store.stats?.() : undefined;
        return stats ? [JSON.stringify({ time: now, task: taskId, store: store.name, type: store.type, ...stats })] : [];
      })
      .join('\n');
    if (lines === '') return;
    this.rotateIfNeeded();
    fs.appendFileSync(this.file, lines + '\n');
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  private rotateIfNeeded(): void {
    try {
      if (fs.statSync(this.file).size >= this.options.maxFileSize) fs.renameSync(this.file, `${this.file}.1`);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}
