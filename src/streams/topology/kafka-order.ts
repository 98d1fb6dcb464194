/**
 * The order in which Kafka Streams' `TopologyDescription` lists a node's successors and predecessors, and a
 * processor's stores, reproduced from the Java collections it builds them with, so that Sluice's text form is Kafka
 * Streams' character for character (`InternalTopologyBuilder.describeSubtopology`):
 *
 * - the nodes of a sub-topology are visited in the iteration order of a `HashMap` keyed by name;
 * - each visited node is linked to its predecessors, and each link adds the node's sub-graph size, as it is at that
 *   moment, to the predecessor and to everything upstream of it;
 * - successors and predecessors go into `TreeSet`s ordered by size (largest first), then name, with the sizes of the
 *   moment of insertion: a node that grows later keeps its place in the sets it is already in.
 *
 * Stores and topics are `HashSet`s of names.
 */

/** Java's `String.hashCode()` over UTF-16 code units. */
function javaHash(text: string): number {
  let hash = 0;
  for (let i = 0; i < text.length; i++) hash = (Math.imul(31, hash) + text.charCodeAt(i)) | 0;
  return hash;
}

/** `HashMap`'s bucket of a key: the hash with its high half folded in, masked by the table size. */
function bucket(text: string, capacity: number): number {
  const hash = javaHash(text);
  return (hash ^ (hash >>> 16)) & (capacity - 1);
}

/** The table size of a `HashMap` after `size` puts into a default one (16, doubling beyond a 0.75 load). */
function grownCapacity(size: number): number {
  let capacity = 16;
  while (size > capacity * 0.75) capacity *= 2;
  return capacity;
}

/** The table size of `new HashSet<>(collection)`: the power of two at least `max(size / 0.75 + 1, 16)`. */
function copiedCapacity(size: number): number {
  const wanted = Math.max(Math.floor(size / 0.75) + 1, 16);
  let capacity = 1;
  while (capacity < wanted) capacity *= 2;
  return capacity;
}

/** Iteration order of a hash table: by bucket, insertion order within one (resizing keeps it). */
function byBucket<T>(items: readonly T[], key: (item: T) => string, capacity: number): T[] {
  return items
    .map((item, index) => ({ item, index, bucket: bucket(key(item), capacity) }))
    .sort((a, b) => a.bucket - b.bucket || a.index - b.index)
    .map(({ item }) => item);
}

/** Iteration order of `new HashSet<>(set)` where `set` was filled one name at a time, in `names` order. */
export function javaHashSetCopyOrder(names: readonly string[]): string[] {
  const filled = byBucket(names, (name) => name, grownCapacity(names.length));
  return byBucket(filled, (name) => name, copiedCapacity(names.length));
}

/** Iteration order of `new HashSet<>(list)`. */
export function javaHashSetOfListOrder(names: readonly string[]): string[] {
  return byBucket(names, (name) => name, copiedCapacity(names.length));
}

interface TreeEntry<T> {
  value: T;
  left: TreeEntry<T> | undefined;
  right: TreeEntry<T> | undefined;
  parent: TreeEntry<T> | undefined;
  red: boolean;
}

/**
 * `java.util.TreeSet` (a red-black `TreeMap`): insertion compares against the entries on the search path only, so
 * with a comparator whose keys change over time the iteration order depends on the tree's shape, which is why the
 * balancing is Java's own (`TreeMap.fixAfterInsertion`).
 */
class JavaTreeSet<T> {
  private root: TreeEntry<T> | undefined;

  constructor(private readonly compare: (a: T, b: T) => number) {}

  add(value: T): void {
    let parent = this.root;
    if (parent === undefined) {
      this.root = { value, left: undefined, right: undefined, parent: undefined, red: false };
      return;
    }
    let cmp = 0;
    for (let at: TreeEntry<T> | undefined = parent; at !== undefined; at = cmp < 0 ? at.left : at.right) {
      parent = at;
      cmp = this.compare(value, at.value);
      if (cmp === 0) return;
    }
    const entry: TreeEntry<T> = { value, left: undefined, right: undefined, parent, red: true };
    if (cmp < 0) parent!.left = entry;
    else parent!.right = entry;
    this.fixAfterInsertion(entry);
  }

  values(): T[] {
    const out: T[] = [];
    const walk = (entry: TreeEntry<T> | undefined): void => {
      if (entry === undefined) return;
      walk(entry.left);
      out.push(entry.value);
      walk(entry.right);
    };
    walk(this.root);
    return out;
  }

  private fixAfterInsertion(inserted: TreeEntry<T>): void {
    let x: TreeEntry<T> | undefined = inserted;
    while (x !== undefined && x !== this.root && x.parent!.red) {
      const parent: TreeEntry<T> = x.parent!;
      const grand = parent.parent;
      if (parent === grand?.left) {
        const uncle = grand.right;
        if (uncle?.red) {
          parent.red = false;
          uncle.red = false;
          grand.red = true;
          x = grand;
        } else {
          if (x === parent.right) {
            x = parent;
            this.rotateLeft(x);
          }
          x.parent!.red = false;
          const top = x.parent!.parent;
          if (top) {
            top.red = true;
            this.rotateRight(top);
          }
        }
      } else {
        const uncle = grand?.left;
        if (uncle?.red) {
          parent.red = false;
          uncle.red = false;
          grand!.red = true;
          x = grand;
        } else {
          if (x === parent.left) {
            x = parent;
            this.rotateRight(x);
          }
          x.parent!.red = false;
          const top = x.parent!.parent;
          if (top) {
            top.red = true;
            this.rotateLeft(top);
          }
        }
      }
    }
    this.root!.red = false;
  }

  private rotateLeft(p: TreeEntry<T>): void {
    const r = p.right!;
    p.right = r.left;
    if (r.left) r.left.parent = p;
    r.parent = p.parent;
    if (p.parent === undefined) this.root = r;
    else if (p.parent.left === p) p.parent.left = r;
    else p.parent.right = r;
    r.left = p;
    p.parent = r;
  }

  private rotateRight(p: TreeEntry<T>): void {
    const l = p.left!;
    p.left = l.right;
    if (l.right) l.right.parent = p;
    l.parent = p.parent;
    if (p.parent === undefined) this.root = l;
    else if (p.parent.right === p) p.parent.right = l;
    else p.parent.left = l;
    l.right = p;
    p.parent = l;
  }
}

/** A node's neighbours as Kafka Streams lists them. */
export interface NodeLinks {
  predecessors: string[];
  successors: string[];
}

/**
 * Successors and predecessors of the nodes of one sub-topology, in Kafka Streams' order. `nodes` are in the order
 * the topology was built (Kafka Streams' `nodeFactories`), each with its parents in the order they were given.
 */
export function kafkaNodeLinks(nodes: readonly { name: string; parents: readonly string[] }[]): Map<string, NodeLinks> {
  const sizes = new Map(nodes.map((node) => [node.name, 1]));
  const size = (name: string): number => sizes.get(name)!;
  const compare = (a: string, b: string): number => (a === b ? 0 : size(b) - size(a) || (a < b ? -1 : a > b ? 1 : 0));
  const predecessors = new Map(nodes.map((node) => [node.name, new JavaTreeSet(compare)]));
  const successors = new Map(nodes.map((node) => [node.name, new JavaTreeSet(compare)]));
  const grow = (name: string, delta: number): void => {
    sizes.set(name, size(name) + delta);
    for (const upstream of predecessors.get(name)!.values()) grow(upstream, delta);
  };
  for (const node of byBucket(nodes, (n) => n.name, grownCapacity(nodes.length))) {
    for (const parent of node.parents) {
      predecessors.get(node.name)!.add(parent);
      successors.get(parent)!.add(node.name);
      grow(parent, size(node.name));
    }
  }
  return new Map(
    nodes.map((node) => [node.name, { predecessors: predecessors.get(node.name)!.values(), successors: successors.get(node.name)!.values() }]),
  );
}
