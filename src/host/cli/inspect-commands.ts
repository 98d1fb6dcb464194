/**
 * The commands that show what a node holds, each one API resource: lag (the offsets resource), metrics, stores,
 * timeline, topologies, config. They read only, so a viewer's credentials do.
 */

import type { Command } from 'commander';
import type { TimelineEntry } from '../../client';
import { withClient, withConnection, type ConnectionFlags } from './connection';
import { followEvents, reconnectForOption, say, untilInterrupted } from './follow-events';
import { configListing, lagListing, metricsListing, storesListing, TIMELINE_COLUMNS, timelineListing, topologiesListing } from './listings';
import { print, render, table, yaml, type View } from './output';

interface TimelineFlags extends ConnectionFlags {
  follow?: boolean;
  cluster?: boolean;
  reconnectFor: number;
}

/**
 * One timeline entry as --follow prints it: a row of the table's columns (not aligned with the others: it comes on
 * its own), a JSON object per line, or a YAML document.
 */
function timelineEntryText(entry: TimelineEntry, view: View): string {
  if (view.output === 'json') return `${JSON.stringify(entry)}\n`;
  if (view.output === 'yaml') return `---\n${yaml(entry)}`;
  const columns = view.output === 'wide' ? TIMELINE_COLUMNS : TIMELINE_COLUMNS.filter((column) => column.wide !== true);
  return table(
    columns.map((column) => column.header),
    [columns.map((column) => column.cell(entry))],
    false,
  );
}

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

  withConnection(
    cli
      .command('timeline')
      .argument('<application>', 'application id')
      .option('--cluster', "every node's timeline of the application, merged by start time; the nodes that did not answer are named on standard error")
      .option('--follow', "then print each entry as it is added or updated (an update has the same ID), until Ctrl-C; this node's only")
      .addOption(reconnectForOption())
      .description(
        "the instance's rebalances on this node (generation, causes as far as the node knows them, tasks moved, what they restored) and its restores (records, rate, time left), oldest first; wide adds the node and the entry ids",
      ),
  ).action(async (application: string, flags: TimelineFlags) =>
    withClient(flags, async (client) => {
      const timeline = await client.timeline(application, flags.cluster === true ? { scope: 'cluster' } : {});
      for (const failed of timeline.failure ?? []) say(`sluice: ${failed.server} did not answer: ${failed.errors.map((error) => error.message).join('; ')}`);
      const listing = timelineListing(timeline);
      if (flags.follow !== true) return print(render(listing, flags));
      // Followed, json and yaml print entry by entry, those there already first: one stream a script reads alike.
      if (flags.output === 'json' || flags.output === 'yaml') for (const entry of timeline.entries) print(timelineEntryText(entry, flags));
      else print(render(listing, flags));
      await untilInterrupted((signal) =>
        followEvents(client, application, 'timeline', {
          reconnectForMs: flags.reconnectFor * 1000,
          signal,
          print: (event) =>
            event.type === 'dropped'
              ? say(`sluice: the node dropped ${(event.data as { dropped: number }).dropped} timeline events (a slow reader)`)
              : print(timelineEntryText(event.data as TimelineEntry, flags)),
          say,
        }),
      );
    }),
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
