/**
 * The commands that show what a node holds, each one API resource: lag (the offsets resource), metrics, stores,
 * topologies, config. They read only, so a viewer's credentials do.
 */

import type { Command } from 'commander';
import { withClient, withConnection, type ConnectionFlags } from './connection';
import { configListing, lagListing, metricsListing, storesListing, topologiesListing } from './listings';
import { print, render } from './output';

interface MetricsFlags extends ConnectionFlags {
  group?: string;
  name?: string;
  filterEmpty?: boolean;
}

export function addInspectCommands(cli: Command): void {
  withConnection(
    cli
      .command('lag')
      .argument('<application>', 'application id')
      .description("the instance's input partitions: committed and end offsets and the lag (? while unknown); wide adds the threads and consumed offsets"),
  ).action(async (application: string, flags: ConnectionFlags) =>
    withClient(flags, async (client) => print(render(lagListing(await client.offsets(application)), flags))),
  );

  withConnection(
    cli
      .command('metrics')
      .argument('<application>', 'application id')
      .option('--group <group>', 'only this metric group, e.g. stream-thread-metrics')
      .option('--name <name>', 'only the metrics of this name, e.g. process-rate')
      .option('--filter-empty', 'leave out metrics with no measurement or zero')
      .description("the instance's metrics with their tags and values; wide adds their descriptions"),
  ).action(async (application: string, flags: MetricsFlags) =>
    withClient(flags, async (client) => {
      // The API narrows to a name within a group only; a name alone is looked for in every group.
      const byGroup = flags.group !== undefined || flags.name === undefined;
      const groups = await client.metrics(application, {
        filterEmpty: flags.filterEmpty === true,
        ...(flags.group === undefined ? {} : { group: flags.group }),
        ...(byGroup && flags.name !== undefined ? { name: flags.name } : {}),
      });
      const shown = byGroup ? groups : groups.map((group) => ({ ...group, metrics: group.metrics.filter((metric) => metric.name === flags.name) })).filter((group) => group.metrics.length > 0);
      print(render(metricsListing(shown), flags));
    }),
  );

  withConnection(
    cli
      .command('stores')
      .argument('<application>', 'application id')
      .description("the instance's store partitions on this node: changelog, offsets and lag; wide adds the last restoration"),
  ).action(async (application: string, flags: ConnectionFlags) =>
    withClient(flags, async (client) => print(render(storesListing(await client.stores(application)), flags))),
  );

  withConnection(cli.command('topologies').description('the topologies registered on the node, which deploy takes by name or alias')).action(async (flags: ConnectionFlags) =>
    withClient(flags, async (client) => print(render(topologiesListing(await client.topologies()), flags))),
  );

  withConnection(
    cli
      .command('config')
      .argument('<application>', 'application id')
      .description("the instance's configuration, secrets hidden as the API hides them"),
  ).action(async (application: string, flags: ConnectionFlags) =>
    withClient(flags, async (client) => print(render(configListing(await client.config(application)), flags))),
  );
}
