import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Function;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.*;
import org.apache.kafka.streams.kstream.internals.SessionWindow;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.FixedKeyProcessor;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorContext;
import org.apache.kafka.streams.processor.api.FixedKeyProcessorSupplier;
import org.apache.kafka.streams.processor.api.FixedKeyRecord;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.SessionStore;
import org.apache.kafka.streams.state.Stores;
import org.apache.kafka.streams.state.TimestampedKeyValueStore;
import org.apache.kafka.streams.state.TimestampedWindowStore;
import org.apache.kafka.streams.state.ValueAndTimestamp;
import org.apache.kafka.streams.state.WindowStore;
import org.apache.kafka.streams.test.TestRecord;

/**
 * The Kafka Streams side of Sluice's differential suite (differential.test.ts): builds each scenario's topology by
 * name, the same topologies as topologies.ts builds in Sluice, pipes the scenario's records through Kafka Streams'
 * own TopologyTestDriver, and prints one JSON line per scenario with every output record (topic, key, value,
 * timestamp) and the input step after which it appeared. Usage: KafkaStreamsDriver <scenarios.json>.
 */
public class KafkaStreamsDriver {
  private static final ObjectMapper JSON = new ObjectMapper();

  public static void main(String[] args) throws Exception {
    JsonNode scenarios = JSON.readTree(new File(args[0]));
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    for (JsonNode scenario : scenarios) out.println(JSON.writeValueAsString(run(scenario)));
  }

  private static ObjectNode run(JsonNode scenario) throws Exception {
    ObjectNode result = JSON.createObjectNode();
    result.put("id", scenario.get("id").asText());
    StreamsBuilder builder = new StreamsBuilder();
    build(scenario.get("topology").asText(), builder);
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, "differential");
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
    props.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
    props.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
    props.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, scenario.get("caching").asBoolean() ? 10 * 1024 * 1024L : 0L);
    props.put(StreamsConfig.STATE_DIR_CONFIG, Files.createTempDirectory("differential-").toString());
    Iterator<Map.Entry<String, JsonNode>> config = scenario.path("config").fields();
    while (config.hasNext()) {
      Map.Entry<String, JsonNode> entry = config.next();
      props.put(entry.getKey(), entry.getValue().asText());
    }
    ArrayNode records = result.putArray("records");
    try (TopologyTestDriver driver = new TopologyTestDriver(builder.build(), props, Instant.ofEpochMilli(0))) {
      Map<String, TestInputTopic<String, String>> inputs = new HashMap<>();
      Map<String, TestOutputTopic<String, ?>> outputs = new HashMap<>();
      for (JsonNode output : scenario.get("outputs")) {
        Deserializer<?> values = output.get("value").asText().equals("long") ? Serdes.Long().deserializer() : Serdes.String().deserializer();
        outputs.put(output.get("topic").asText(), driver.createOutputTopic(output.get("topic").asText(), Serdes.String().deserializer(), values));
      }
      int step = 0;
      for (JsonNode input : scenario.get("inputs")) {
        String topic = input.get("topic").asText();
        TestInputTopic<String, String> in = inputs.computeIfAbsent(topic, t -> driver.createInputTopic(t, new StringSerializer(), new StringSerializer()));
        in.pipeInput(text(input.get("key")), text(input.get("value")), input.get("timestamp").asLong());
        for (JsonNode output : scenario.get("outputs")) {
          String name = output.get("topic").asText();
          for (TestRecord<String, ?> record : outputs.get(name).readRecordsToList()) {
            ObjectNode line = records.addObject();
            line.put("step", step);
            line.put("topic", name);
            line.put("key", record.key());
            line.putPOJO("value", record.value());
            line.put("timestamp", record.timestamp());
          }
        }
        step++;
      }
    } catch (RuntimeException e) {
      Throwable cause = e;
      while (cause.getCause() != null) cause = cause.getCause();
      result.put("error", cause.toString());
    }
    return result;
  }

  private static String text(JsonNode node) {
    return node == null || node.isNull() ? null : node.asText();
  }

  private static String windowed(Windowed<String> key) {
    return key.key() + "@" + key.window().start() + "/" + key.window().end();
  }

  private static String joined(String left, String right) {
    return left + "+" + right;
  }

  /**
   * The fixed-key processor of "processors": counts each key's records in the store "seen" and appends the count to
   * the value; every 5 s of stream time it forwards the latest record again as a tick.
   */
  private static class RunningCount implements FixedKeyProcessor<String, String, String> {
    private FixedKeyProcessorContext<String, String> context;
    private KeyValueStore<String, Long> seen;
    private FixedKeyRecord<String, String> latest;

    @Override
    public void init(FixedKeyProcessorContext<String, String> context) {
      this.context = context;
      this.seen = context.getStateStore("seen");
      context.schedule(Duration.ofMillis(5_000), PunctuationType.STREAM_TIME, time -> {
        if (latest != null) context.forward(latest.withValue("tick@" + time).withTimestamp(time));
      });
    }

    @Override
    public void process(FixedKeyRecord<String, String> record) {
      if (record.key() == null) {
        context.forward(record.withValue(record.value() + "#-"));
        return;
      }
      Long before = seen.get(record.key());
      long count = before == null ? 1 : before + 1;
      seen.put(record.key(), count);
      latest = record;
      context.forward(record.withValue(record.value() + "#" + count));
    }
  }

  /** What a cached-store topology reads from its store after writing the record into it. */
  private interface StoreReads<S> {
    List<String> apply(S store, String key, String value, long timestamp);
  }

  /**
   * The fixed-key processor of the cached-store topologies: `readsOf` writes the record into the store, then gives
   * what the store's reads return, which are forwarded joined by " | ". Records with a null key are skipped.
   */
  private static <S> FixedKeyProcessorSupplier<String, String, String> reads(String storeName, StoreReads<S> readsOf) {
    return () -> new FixedKeyProcessor<String, String, String>() {
      private FixedKeyProcessorContext<String, String> context;
      private S store;

      @Override
      public void init(FixedKeyProcessorContext<String, String> context) {
        this.context = context;
        this.store = context.getStateStore(storeName);
      }

      @Override
      public void process(FixedKeyRecord<String, String> record) {
        if (record.key() == null) return;
        List<String> parts = readsOf.apply(store, record.key(), record.value(), record.timestamp());
        context.forward(record.withValue(String.join(" | ", parts)));
      }
    };
  }

  private static <K, V> String listed(KeyValueIterator<K, V> iterator, Function<KeyValue<K, V>, String> show) {
    try (iterator) {
      List<String> shown = new ArrayList<>();
      while (iterator.hasNext()) shown.add(show.apply(iterator.next()));
      return String.join(",", shown);
    }
  }

  private static String stamped(ValueAndTimestamp<String> value) {
    return value == null ? "-" : value.value() + "@" + value.timestamp();
  }

  private static String orDash(String value) {
    return value == null ? "-" : value;
  }

  private static long windowStart(long timestamp) {
    return timestamp - timestamp % 5_000;
  }

  private static String showWindow(KeyValue<Windowed<String>, String> entry) {
    return windowed(entry.key) + "=" + entry.value;
  }

  private static List<String> keyValueReads(KeyValueStore<String, String> store, String key, String value, long timestamp) {
    if (value == null) store.delete(key);
    else store.put(key, value);
    Function<KeyValue<String, String>, String> show = entry -> entry.key + "=" + entry.value;
    return List.of(listed(store.all(), show), listed(store.reverseRange("b", "d"), show),
        listed(store.prefixScan(key.substring(0, 1), new StringSerializer()), show), orDash(store.get(key)));
  }

  private static List<String> timestampedKeyValueReads(TimestampedKeyValueStore<String, String> store, String key, String value, long timestamp) {
    ValueAndTimestamp<String> current = store.get(key);
    if (current == null || timestamp >= current.timestamp()) store.put(key, ValueAndTimestamp.make(value, timestamp));
    Function<KeyValue<String, ValueAndTimestamp<String>>, String> show = entry -> entry.key + "=" + stamped(entry.value);
    return List.of(listed(store.all(), show), listed(store.reverseAll(), show), stamped(store.get(key)));
  }

  private static List<String> windowReads(WindowStore<String, String> store, String key, String value, long timestamp) {
    long start = windowStart(timestamp);
    if (value == null) store.put(key, null, start);
    else store.put(key, orEmpty(store.fetch(key, start)) + value, start);
    Function<KeyValue<Long, String>, String> showStart = entry -> entry.key + "=" + entry.value;
    return List.of(listed(store.fetch(key, 0L, timestamp), showStart), listed(store.backwardFetch(key, 0L, timestamp), showStart),
        listed(store.all(), KafkaStreamsDriver::showWindow), listed(store.fetch("a", "b", 0L, timestamp), KafkaStreamsDriver::showWindow),
        orDash(store.fetch(key, start)));
  }

  private static String orEmpty(String value) {
    return value == null ? "" : value;
  }

  private static List<String> timestampedWindowReads(TimestampedWindowStore<String, String> store, String key, String value, long timestamp) {
    long start = windowStart(timestamp);
    ValueAndTimestamp<String> current = store.fetch(key, start);
    store.put(key, value == null ? null : ValueAndTimestamp.make((current == null ? "" : current.value()) + value,
        current == null ? timestamp : Math.max(current.timestamp(), timestamp)), start);
    Function<KeyValue<Windowed<String>, ValueAndTimestamp<String>>, String> show = entry -> windowed(entry.key) + "=" + stamped(entry.value);
    return List.of(listed(store.fetchAll(0L, timestamp), show), listed(store.backwardAll(), show),
        listed(store.backwardFetch(key, 0L, timestamp), entry -> entry.key + "=" + stamped(entry.value)), stamped(store.fetch(key, start)));
  }

  private static List<String> sessionReads(SessionStore<String, String> store, String key, String value, long timestamp) {
    Windowed<String> session = new Windowed<>(key, new SessionWindow(timestamp, timestamp + 1_000));
    if (value == null) store.remove(session);
    else store.put(session, value);
    return List.of(listed(store.fetch(key), KafkaStreamsDriver::showWindow),
        listed(store.findSessions(key, timestamp - 3_000, timestamp + 3_000), KafkaStreamsDriver::showWindow),
        listed(store.fetch("a", "b"), KafkaStreamsDriver::showWindow), orDash(store.fetchSession(key, timestamp, timestamp + 1_000)));
  }

  /** The topologies by name; topologies.ts builds each the same way in Sluice. */
  private static void build(String name, StreamsBuilder b) {
    switch (name) {
      case "tumbling": {
        b.<String, String>stream("in").groupByKey().windowedBy(TimeWindows.ofSizeAndGrace(Duration.ofMillis(10_000), Duration.ofMillis(5_000)))
            .count().toStream().selectKey((k, v) -> windowed(k)).to("out", Produced.valueSerde(Serdes.Long()));
        break;
      }
      case "hopping": {
        b.<String, String>stream("in").groupByKey()
            .windowedBy(TimeWindows.ofSizeAndGrace(Duration.ofMillis(10_000), Duration.ofMillis(2_000)).advanceBy(Duration.ofMillis(5_000)))
            .aggregate(() -> "", (k, v, a) -> a + v, Materialized.with(Serdes.String(), Serdes.String()))
            .toStream().selectKey((k, v) -> windowed(k)).to("out");
        break;
      }
      case "sliding": {
        KGroupedStream<String, String> grouped = b.<String, String>stream("in").groupByKey();
        TimeWindowedKStream<String, String> windowed = grouped.windowedBy(SlidingWindows.ofTimeDifferenceAndGrace(Duration.ofMillis(5_000), Duration.ofMillis(2_000)));
        windowed.reduce((a, v) -> a + v).toStream().selectKey((k, v) -> windowed(k)).to("out");
        windowed.count().toStream().selectKey((k, v) -> windowed(k)).to("count", Produced.valueSerde(Serdes.Long()));
        break;
      }
      case "session": {
        SessionWindowedKStream<String, String> sessions = b.<String, String>stream("in").groupByKey()
            .windowedBy(SessionWindows.ofInactivityGapAndGrace(Duration.ofMillis(5_000), Duration.ofMillis(2_000)));
        sessions.aggregate(() -> "", (k, v, a) -> a + v, (k, a, c) -> a + c, Materialized.with(Serdes.String(), Serdes.String()))
            .toStream().selectKey((k, v) -> windowed(k)).to("out");
        sessions.count().toStream().selectKey((k, v) -> windowed(k)).to("count", Produced.valueSerde(Serdes.Long()));
        break;
      }
      case "suppress-window-close": {
        b.<String, String>stream("in").groupByKey().windowedBy(TimeWindows.ofSizeAndGrace(Duration.ofMillis(10_000), Duration.ofMillis(2_000)))
            .count(Materialized.with(Serdes.String(), Serdes.Long())).suppress(Suppressed.untilWindowCloses(Suppressed.BufferConfig.unbounded()))
            .toStream().selectKey((k, v) -> windowed(k)).to("out", Produced.valueSerde(Serdes.Long()));
        break;
      }
      case "suppress-time-limit": {
        b.<String, String>table("t").suppress(Suppressed.untilTimeLimit(Duration.ofMillis(3_000), Suppressed.BufferConfig.maxRecords(100)))
            .toStream().to("out");
        b.<String, String>stream("in").groupByKey().count()
            .suppress(Suppressed.untilTimeLimit(Duration.ofMillis(3_000), Suppressed.BufferConfig.unbounded()))
            .toStream().to("count", Produced.valueSerde(Serdes.Long()));
        break;
      }
      case "stream-stream-join": {
        KStream<String, String> left = b.stream("left");
        KStream<String, String> right = b.stream("right");
        JoinWindows window = JoinWindows.ofTimeDifferenceAndGrace(Duration.ofMillis(5_000), Duration.ofMillis(2_000));
        left.join(right, KafkaStreamsDriver::joined, window).to("inner");
        left.leftJoin(right, KafkaStreamsDriver::joined, window).to("left-out");
        left.outerJoin(right, KafkaStreamsDriver::joined, window).to("outer");
        break;
      }
      case "stream-table-join": {
        KTable<String, String> table = b.table("t");
        KStream<String, String> stream = b.stream("s");
        stream.join(table, KafkaStreamsDriver::joined).to("inner");
        stream.leftJoin(table, KafkaStreamsDriver::joined).to("left-out");
        break;
      }
      case "table-table-join": {
        KTable<String, String> a = b.table("a");
        KTable<String, String> c = b.table("b");
        a.join(c, KafkaStreamsDriver::joined).toStream().to("inner");
        a.leftJoin(c, KafkaStreamsDriver::joined).toStream().to("left-out");
        a.outerJoin(c, KafkaStreamsDriver::joined).toStream().to("outer");
        break;
      }
      case "foreign-key-join": {
        KTable<String, String> left = b.table("left");
        KTable<String, String> right = b.table("right");
        java.util.function.Function<String, String> fk = v -> v.contains(":") ? v.split(":")[0] : null;
        left.join(right, fk, KafkaStreamsDriver::joined).toStream().to("inner");
        left.leftJoin(right, fk, KafkaStreamsDriver::joined).toStream().to("left-out");
        left.join(right, fk, KafkaStreamsDriver::joined, TableJoined.as("fk"), Materialized.as("fk-store")).toStream().to("materialized");
        left.filter((k, v) -> !v.endsWith("!")).leftJoin(right.mapValues(v -> v.toUpperCase()), fk, KafkaStreamsDriver::joined).toStream().to("derived");
        break;
      }
      case "table-aggregations": {
        KGroupedTable<String, String> regrouped = b.<String, String>table("t").groupBy((k, v) -> KeyValue.pair(v, k));
        regrouped.count().toStream().to("count", Produced.valueSerde(Serdes.Long()));
        regrouped.reduce((a, v) -> a + v, (a, v) -> a + "-" + v).toStream().to("reduce");
        regrouped.aggregate(() -> "", (k, v, a) -> a + "+" + v, (k, v, a) -> a + "-" + v, Materialized.with(Serdes.String(), Serdes.String()))
            .toStream().to("aggregate");
        break;
      }
      case "table-filter-map": {
        KTable<String, String> table = b.table("t");
        table.filter((k, v) -> !v.startsWith("x")).mapValues(v -> v.toUpperCase()).toStream().to("out");
        table.filterNot((k, v) -> v.startsWith("x"), Materialized.as("kept")).toStream().to("materialized");
        break;
      }
      case "word-count": {
        KStream<String, String> words = b.<String, String>stream("in").flatMapValues(v -> Arrays.asList(v.split(" ")));
        words.groupBy((k, v) -> v).count().toStream().to("by-word", Produced.valueSerde(Serdes.Long()));
        words.groupByKey().count().toStream().to("by-key", Produced.valueSerde(Serdes.Long()));
        break;
      }
      case "cogroup": {
        KGroupedStream<String, String> clicks = b.<String, String>stream("clicks").groupByKey();
        KGroupedStream<String, String> views = b.<String, String>stream("views").groupBy((k, v) -> v);
        CogroupedKStream<String, String> cogrouped = clicks.cogroup((String k, String v, String a) -> a + "c" + v).cogroup(views, (k, v, a) -> a + "v");
        Materialized<String, String, KeyValueStore<Bytes, byte[]>> kv = Materialized.with(Serdes.String(), Serdes.String());
        cogrouped.aggregate(() -> "", kv).toStream().to("out");
        cogrouped.windowedBy(TimeWindows.ofSizeAndGrace(Duration.ofMillis(10_000), Duration.ofMillis(2_000)))
            .aggregate(() -> "", Materialized.with(Serdes.String(), Serdes.String()))
            .toStream().selectKey((k, v) -> windowed(k)).to("windowed");
        cogrouped.windowedBy(SlidingWindows.ofTimeDifferenceAndGrace(Duration.ofMillis(5_000), Duration.ofMillis(2_000)))
            .aggregate(() -> "", Materialized.with(Serdes.String(), Serdes.String()))
            .toStream().selectKey((k, v) -> windowed(k)).to("sliding");
        cogrouped.windowedBy(SessionWindows.ofInactivityGapAndGrace(Duration.ofMillis(5_000), Duration.ofMillis(10_000)))
            .aggregate(() -> "", (k, a, c) -> a + "|" + c, Materialized.with(Serdes.String(), Serdes.String()))
            .toStream().selectKey((k, v) -> windowed(k)).to("session");
        break;
      }
      case "global-table": {
        GlobalKTable<String, String> users = b.globalTable("users");
        KStream<String, String> orders = b.stream("orders");
        orders.join(users, (k, v) -> v, KafkaStreamsDriver::joined).to("inner");
        orders.leftJoin(users, (k, v) -> v, KafkaStreamsDriver::joined).to("left-out");
        break;
      }
      case "versioned-table": {
        KTable<String, String> table = b.table("t", Materialized.<String, String>as(Stores.persistentVersionedKeyValueStore("versions", Duration.ofMillis(5_000))));
        table.toStream().to("out");
        table.mapValues(v -> v.toUpperCase()).toStream().to("mapped");
        table.groupBy((k, v) -> KeyValue.pair(v, k)).count().toStream().to("count", Produced.valueSerde(Serdes.Long()));
        b.<String, String>stream("u").toTable(Materialized.<String, String>as(Stores.persistentVersionedKeyValueStore("u-versions", Duration.ofMillis(5_000))))
            .toStream().to("u-out");
        break;
      }
      case "versioned-stream-table-join": {
        KTable<String, String> table = b.table("t",
            Materialized.<String, String>as(Stores.persistentVersionedKeyValueStore("versions", Duration.ofMillis(10_000), Duration.ofMillis(2_000))));
        KStream<String, String> stream = b.stream("s");
        stream.join(table, KafkaStreamsDriver::joined).to("inner");
        stream.leftJoin(table, KafkaStreamsDriver::joined).to("left-out");
        stream.join(table.filter((k, v) -> !v.endsWith("2")), KafkaStreamsDriver::joined).to("filtered");
        break;
      }
      case "versioned-join-grace": {
        KTable<String, String> table = b.table("t", Materialized.<String, String>as(Stores.persistentVersionedKeyValueStore("versions", Duration.ofMillis(10_000))));
        KStream<String, String> stream = b.stream("s");
        Joined<String, String, String> grace = Joined.<String, String, String>with(Serdes.String(), Serdes.String(), Serdes.String())
            .withGracePeriod(Duration.ofMillis(2_000));
        stream.join(table, KafkaStreamsDriver::joined, grace).to("inner");
        stream.leftJoin(table, KafkaStreamsDriver::joined, grace).to("left-out");
        break;
      }
      case "cached-key-value": {
        b.addStateStore(Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore("kv"), Serdes.String(), Serdes.String()).withCachingEnabled());
        b.<String, String>stream("in").processValues(reads("kv", KafkaStreamsDriver::keyValueReads), "kv").to("out");
        break;
      }
      case "cached-timestamped-key-value": {
        b.addStateStore(Stores.timestampedKeyValueStoreBuilder(Stores.persistentTimestampedKeyValueStore("tkv"), Serdes.String(), Serdes.String())
            .withCachingEnabled());
        b.<String, String>stream("in").processValues(reads("tkv", KafkaStreamsDriver::timestampedKeyValueReads), "tkv").to("out");
        break;
      }
      case "cached-window": {
        b.addStateStore(Stores.windowStoreBuilder(Stores.persistentWindowStore("win", Duration.ofMillis(10_000), Duration.ofMillis(5_000), false),
            Serdes.String(), Serdes.String()).withCachingEnabled());
        b.<String, String>stream("in").processValues(reads("win", KafkaStreamsDriver::windowReads), "win").to("out");
        break;
      }
      case "cached-timestamped-window": {
        b.addStateStore(Stores.timestampedWindowStoreBuilder(
            Stores.persistentTimestampedWindowStore("twin", Duration.ofMillis(10_000), Duration.ofMillis(5_000), false), Serdes.String(), Serdes.String())
            .withCachingEnabled());
        b.<String, String>stream("in").processValues(reads("twin", KafkaStreamsDriver::timestampedWindowReads), "twin").to("out");
        break;
      }
      case "cached-session": {
        b.addStateStore(Stores.sessionStoreBuilder(Stores.persistentSessionStore("ses", Duration.ofMillis(10_000)), Serdes.String(), Serdes.String())
            .withCachingEnabled());
        b.<String, String>stream("in").processValues(reads("ses", KafkaStreamsDriver::sessionReads), "ses").to("out");
        break;
      }
      case "processors": {
        b.addStateStore(Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore("seen"), Serdes.String(), Serdes.Long()));
        KStream<String, String> in = b.stream("in");
        KStream<String, String> values = in.processValues(RunningCount::new, "seen");
        values.to("values");
        values.groupByKey().count().toStream().to("values-count", Produced.valueSerde(Serdes.Long()));
        KStream<String, String> rekeyed = in.process(() -> new Processor<String, String, String, String>() {
          private ProcessorContext<String, String> context;

          @Override
          public void init(ProcessorContext<String, String> context) {
            this.context = context;
          }

          @Override
          public void process(Record<String, String> record) {
            if (record.value() != null) context.forward(new Record<>(record.value(), record.key(), record.timestamp() + 1));
          }
        });
        rekeyed.to("rekeyed");
        rekeyed.groupByKey().count().toStream().to("rekeyed-count", Produced.valueSerde(Serdes.Long()));
        break;
      }
      default:
        throw new IllegalArgumentException("no topology named " + name);
    }
  }
}
