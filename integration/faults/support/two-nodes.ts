/**
 * What the two-node fault tests (a node frozen, a node cut off) share: how they see which node holds tasks, the
 * input they keep producing while the fault lasts, and the logs they print when they fail.
 */
import type { KafkaProducer } from '../../../src/streams/kafka';
import { produceLines } from '../../support/streams';
import type { InstanceProcess } from '../../runtime/support/instance-process';

/** The host map as `node` sees it: the number of input and repartition partitions each member holds, sorted. */
export async function shares(node: InstanceProcess): Promise<number[]> {
  return (await node.metadata()).map((member) => member.topicPartitions.length).sort();
}

/** Both nodes RUNNING, each with partitions of its own. */
export async function bothHoldTasks(nodes: readonly [InstanceProcess, InstanceProcess]): Promise<boolean> {
  for (const node of nodes) {
    if (node.state !== 'RUNNING') return false;
    const held = await shares(node);
    if (held.length !== 2 || held.some((n) => n === 0)) return false;
  }
  return true;
}

/** `node` RUNNING and alone in the group, holding all `partitions`. */
export async function holdsAll(node: InstanceProcess, partitions: number): Promise<boolean> {
  return node.state === 'RUNNING' && (await shares(node)).join() === String(partitions);
}

/** Lines `from` to `to` produced 100 at a time, 50 ms apart: input that keeps arriving while a fault lasts. */
export class SteadyInput {
  /** Lines before this one are sent. */
  sent: number;
  readonly done: Promise<void>;

  constructor(producer: KafkaProducer, topic: string, from: number, to: number) {
    this.sent = from;
    this.done = this.produce(producer, topic, to);
  }

  private async produce(producer: KafkaProducer, topic: string, to: number): Promise<void> {
    for (; this.sent < to; this.sent += 100) {
      await produceLines(producer, topic, this.sent, Math.min(to, this.sent + 100));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** Each node's states and the end of its log, for a failed test. */
export function nodeLogs(nodes: readonly InstanceProcess[]): string {
  return nodes.map((node) => `--- ${node.name}: ${node.states.map((c) => c.state).join(' -> ')}\n${node.tail(60)}`).join('\n');
}
