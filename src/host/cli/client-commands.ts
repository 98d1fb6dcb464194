/**
 * The commands that manage a running node through its API, on sluice/client: status, query, restart, stop, deploy,
 * delete, events, topology (what the node shows of an application: inspect-commands.ts). Output goes to standard output; an error
 * ends the command with its message on standard error and its exit code (main in ../cli.ts, exit-codes.ts).
 */

import type { Command } from 'commander';
import { InvalidClientRequest } from '../../errors';
import type { InstanceAction } from '../../client';
import { withClient, withConnection, type ConnectionFlags } from './connection';
import { EXIT } from './exit-codes';
import { describeIncomplete, formatAction, instancesListing, recordsListing, statusListing } from './listings';
import { formatEvent, formatTopology, print, render, renderDocument } from './output';
import { parseOptions, parseParams } from './query-args';
import { stdoutWriter, writeAllPages } from './query-pages';
import { followEvents, reconnectForOption, say, untilInterrupted } from './follow-events';
import { deployRequest, type DeployFlags } from './deploy-args';

const QUERY_HELP = `
Parameters are name=value, in snake_case or camelCase: key for get and fetch; key_from and key_to for range,
reverse_range and fetch_key_range; prefix for prefix_scan; time, time_from and time_to (epoch ms or an ISO-8601 date)
for the window clauses; as_of (the same) for a versioned get, which without it answers the latest version. A key is read as JSON when it parses (key=42 is a number, key='"42"' a string), else as the
text itself (key=kafka). Clauses by --type:
  key_value, timestamped_key_value  get, range, all, count, prefix_scan, reverse_range, reverse_all
  window, timestamped_window        fetch, fetch_key_range, fetch_time_range, fetch_all, all
  session                           fetch, fetch_key_range
  versioned_key_value               get
Options (--set name=value, repeatable): retries, retry_backoff_ms, query_timeout_ms, remote_access_allowed, limit, allow_stale, max_lag.
The exit status is 0 when every part of the store answered (SUCCESS), ${EXIT.partial} (a partial answer) otherwise: the
records that came are printed, and the status and the failed parts go to standard error.

--all follows the continuation token through every page (paging clauses: all, range, fetch_all, ...; --set limit=N
sets a page's size) and writes each page as it comes, one JSON object per line: a record as
{"part":"success","server","remote","key","value",...}, a failed part as {"part":"failure","status","server","errors"}.
A failed part in any page makes the exit status ${EXIT.partial}.

Example: sluice query word-count count get key=kafka
`;

const DEPLOY_HELP = `
The request is the API's deploy body (POST /api/v1/streams): from a file (-f, YAML or JSON) with type, version, name,
description and config, and/or from the argument and flags, which override the file. --set key=value (repeatable)
sets a configuration key (integers and true/false as such); a deployment may set streams and client tuning only, and
the node names a key it refuses. The new instance starts at once; sluice status shows it.

  sluice deploy word-count --name word-count-2 --set num.stream.threads=2
  sluice deploy -f word-count-2.yaml
`;

const STOP_HELP = `
A node with static membership (group.instance.id, as the Kubernetes StatefulSet sets) keeps its place in the consumer
group when it stops, so that it gets its partitions back without a rebalance if it returns within session.timeout.ms;
until then nobody processes them. Before removing a node for good (scaling down), stop it with --leave-group:

  sluice stop --all --leave-group
`;

export function addClientCommands(cli: Command): void {
  withConnection(
    cli
      .command('status')
      .argument('[application]', 'an application id: its threads and tasks')
      .description("the node's instances with their state and health, or one instance's threads and tasks"),
  ).action(async (application: string | undefined, flags: ConnectionFlags) =>
    withClient(flags, async (client) => {
      if (application !== undefined) {
        const [instance, status] = await Promise.all([client.instance(application), client.status(application)]);
        print(render(statusListing(instance, status), flags));
        return;
      }
      const [instances, health] = await Promise.all([client.instances().then((ids) => Promise.all(ids.map((id) => client.instance(id)))), client.health()]);
      print(render(instancesListing(instances, health), flags));
    }),
  );

  withConnection(
    cli
      .command('query')
      .argument('<application>', 'application id')
      .argument('<store>', 'state store name')
      .argument('<clause>', 'get, range, all, count, prefix_scan, fetch, ... (below)')
      .argument('[params...]', 'the clause parameters, name=value')
      .option('-t, --type <type>', 'store type: key_value, timestamped_key_value, window, timestamped_window, session, versioned_key_value', 'key_value')
      .option('--set <option=value>', 'a query option (set_options), repeatable', (value: string, all: string[]) => [...all, value], [] as string[])
      .option('--all', 'follow every page (with --set limit=N, N records per part a page) and write one JSON object per line (NDJSON)')
      .description("queries an application's state store (interactive query)")
      .addHelpText('after', QUERY_HELP),
  ).action(async (application: string, store: string, clause: string, params: string[], flags: ConnectionFlags & { type: string; set: string[]; all?: boolean }) => {
    const parameters = parseParams(params);
    const options = parseOptions(flags.set);
    if (flags.all === true && flags.output !== 'table' && flags.output !== 'json') throw new InvalidClientRequest(`--all writes NDJSON: -o ${flags.output} does not apply`);
    await withClient(flags, async (client) => {
      if (flags.all === true) {
        const query = { type: flags.type, clause, params: parameters };
        if (!(await writeAllPages(client.store(application, store, options), query, stdoutWriter()))) process.exitCode = EXIT.partial;
        return;
      }
      const result = await client.store(application, store, options).query(flags.type, clause, parameters);
      print(render(recordsListing(result.records, result.raw), flags));
      if (!result.complete) {
        process.stderr.write(describeIncomplete(result));
        process.exitCode = EXIT.partial;
      }
    });
  });

  withConnection(
    cli.command('restart').argument('<application>', 'application id').description('restarts an instance (from the same topology and configuration)'),
  ).action(async (application: string, flags: ConnectionFlags) =>
    withClient(flags, async (client) => {
      const action = await client.restart(application);
      print(renderDocument(action, () => formatAction('restarting', action), flags));
    }),
  );

  withConnection(
    cli
      .command('stop')
      .argument('[application]', 'application id')
      .option('--all', "every instance of the node")
      .option('--cleanup', 'also remove its local state directory')
      .option('--leave-group', 'static members (group.instance.id) leave the consumer group: their partitions move to the other nodes at once')
      .description('stops an instance (or --all); it stays listed, STOPPED, and can be restarted')
      .addHelpText('after', STOP_HELP),
  ).action(async (application: string | undefined, flags: ConnectionFlags & { all?: boolean; cleanup?: boolean; leaveGroup?: boolean }) => {
    if ((application === undefined) === (flags.all !== true)) throw new InvalidClientRequest('give an application id or --all');
    await withClient(flags, async (client) => {
      const ids = application === undefined ? await client.instances() : [application];
      const actions: InstanceAction[] = [];
      for (const id of ids) actions.push(await client.stop(id, { cleanup: flags.cleanup === true, leaveGroup: flags.leaveGroup === true }));
      print(renderDocument(application === undefined ? actions : actions[0], () => actions.map((action) => formatAction('stopped', action)).join(''), flags));
    });
  });

  withConnection(
    cli
      .command('deploy')
      .argument('[topology]', 'topology name or alias (sluice topologies), unless the file gives its type')
      .option('-f, --file <file>', 'the deploy body, YAML or JSON')
      .option('--name <id>', 'application id of the new instance (default: the topology and the node decide)')
      // Not --version: the program's own option, which commander reads wherever it stands.
      .option('--topology-version <version>', 'topology version (default: latest)')
      .option('--description <text>', "the instance's description")
      .option('--set <key=value>', 'a configuration key, repeatable', (value: string, all: string[]) => [...all, value], [] as string[])
      .description('starts a new instance of a registered topology on the node (needs the operator role)')
      .addHelpText('after', DEPLOY_HELP),
  ).action(async (topology: string | undefined, flags: ConnectionFlags & DeployFlags) => {
    const request = deployRequest(topology, flags);
    await withClient(flags, async (client) => {
      const deployed = await client.deploy(request);
      print(renderDocument(deployed, () => `deployed ${deployed.id}\n`, flags));
    });
  });

  withConnection(
    cli
      .command('delete')
      .argument('<application>', 'application id')
      .description('stops an instance, removes its local state and forgets it (needs the operator role); stop keeps it listed'),
  ).action(async (application: string, flags: ConnectionFlags) =>
    withClient(flags, async (client) => {
      const action = await client.remove(application);
      print(renderDocument(action, () => formatAction('deleted', action), flags));
    }),
  );

  withConnection(
    cli
      .command('events')
      .argument('<application>', 'application id')
      .argument('<type>', 'event type: state, rebalance, restore, metrics, thread, timeline, memory, or one the topology declares')
      .addOption(reconnectForOption())
      .description("prints an instance's events as they come (server-sent events), until Ctrl-C")
      .addHelpText(
        'after',
        `
One event per line: \`<type> [<id>] <data>\` (table, wide), one JSON object {type, id, data} per line (json), or one YAML
document each (yaml). A dropped connection is reconnected, resuming after the last event printed (Last-Event-ID), so
that none is printed twice (the node keeps its last 1 000 events of a type for a minute); a node gone for longer
than --reconnect-for ends the command with exit status ${EXIT.unreachable}.
`,
      ),
  ).action(async (application: string, type: string, flags: ConnectionFlags & { reconnectFor: number }) =>
    withClient(flags, (client) =>
      untilInterrupted((signal) =>
        followEvents(client, application, type, {
          reconnectForMs: flags.reconnectFor * 1000,
          signal,
          print: (event) => print(formatEvent(event, flags.output)),
          say,
        }),
      ),
    ),
  );

  withConnection(
    cli
      .command('topology')
      .argument('<application>', 'application id')
      .description("an application's topology: Kafka Streams' describe() text (table, wide), or the DAG (json, yaml)"),
  ).action(async (application: string, flags: ConnectionFlags) =>
    withClient(flags, async (client) => {
      const dag = await client.topology(application);
      print(renderDocument(dag, () => formatTopology(dag), flags));
    }),
  );
}
